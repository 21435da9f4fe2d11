package org.cx.accounting;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.data.time.FixedMillisecond;
import org.jfree.data.time.TimeSeries;
import org.jfree.data.time.TimeSeriesCollection;

/** Consumption and contribution over time, as a PNG chart: credits charged and credited per price interval. */
public final class UsageChart {
    private UsageChart() {
    }

    /** Draws {@code points} into {@code file} (a PNG, 900 × 500); {@code whose} names them in the title. */
    public static void write(List<Report.Point> points, String whose, Path file) throws IOException {
        TimeSeries charged = new TimeSeries("consumed (credits charged)");
        TimeSeries credited = new TimeSeries("contributed and offered (credits credited)");
        for (Report.Point p : points) {
            charged.addOrUpdate(new FixedMillisecond(p.intervalStart()), p.charged());
            credited.addOrUpdate(new FixedMillisecond(p.intervalStart()), p.credited());
        }
        TimeSeriesCollection data = new TimeSeriesCollection();
        data.addSeries(charged);
        data.addSeries(credited);
        JFreeChart chart = ChartFactory.createTimeSeriesChart("CX usage of " + whose + ", per "
                + org.cx.wire.Usage.INTERVAL_MILLIS / 60_000 + " minutes", "time", "credits", data, true, false,
                false);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 500);
    }
}
