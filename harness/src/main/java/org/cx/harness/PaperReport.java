package org.cx.harness;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.cx.harness.PaperBench.Experiment;
import org.cx.harness.PaperBench.Point;
import org.cx.harness.PaperBench.Results;
import org.cx.harness.PaperBench.Workload;
import org.cx.wire.EventLoops;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Writes what {@link PaperBench} measured: {@code results.json} (every run), {@code report.md} (the tables, each
 * point beside its zero-overhead ceiling and the paper's figure where the paper gives one, and the targets) and
 * PNG charts: efficiency against n (Fig. 5), where the idle time went (Fig. 6), prefetch on against off, and the
 * mixed-speed experiment.
 */
public final class PaperReport {

    /** The paper's Fig. 5 figures quoted in its text: efficiency over the optimum at n = 13 and n = 18. */
    static final Map<Integer, Double> PAPER_FIG5 = Map.of(13, 0.87, 18, 0.99);
    /** The paper's prefetch experiment (16 processors): efficiency with prefetch on and off. */
    static final Map<Integer, double[]> PAPER_PREFETCH = Map.of(11, new double[] {0.51, 0.54},
            15, new double[] {0.93, 0.80});

    private static final int WIDTH = 900;
    private static final int HEIGHT = 540;

    private PaperReport() {
    }

    /** Writes every file into {@code dir} (created if needed) and returns the files written. */
    public static List<Path> write(Results results, Path dir, String command) throws IOException {
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        Map<String, Object> machine = machine();
        files.add(writeJson(results, dir.resolve("results.json"), command, machine));
        files.addAll(charts(results, dir));
        Path report = dir.resolve("report.md");
        Files.writeString(report, markdown(results, command, machine, files));
        files.add(1, report);
        return files;
    }

    private static Path writeJson(Results results, Path file, String command, Map<String, Object> machine)
            throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("command", command);
        root.put("finished", Instant.now().toString());
        root.put("machine", machine);
        root.put("profile", results.profile().toMap());
        root.put("elapsed_s", results.elapsedS());
        root.put("points", results.points().stream().map(Point::toMap).toList());
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
            w.print(Json.write(root));
        }
        return file;
    }

    static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("cpu", cpuModel());
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
        m.put("transport", EventLoops.transport());
        return m;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    // ---------------------------------------------------------------- report.md

    static String markdown(Results r, String command, Map<String, Object> machine, List<Path> files) {
        PaperBench.Profile profile = r.profile();
        StringBuilder md = new StringBuilder();
        md.append("# CX paper §5, reproduced\n\n");
        line(md, "Command: `%s` (profile %s, %d measured run%s per point, median by wall time). Took %s.",
                command, profile.name(), profile.repeat(), profile.repeat() == 1 ? "" : "s",
                PaperBench.minutes(r.elapsedS()));
        line(md, "Machine: %s cores (%s), %s, %s; Netty transport %s.", machine.get("cores"), machine.get("cpu"),
                machine.get("os"), machine.get("java"), machine.get("transport"));
        line(md, "Every producer is a separate TCP connection over loopback; task times are the paper's Table 2 "
                + "times (Dual 512) divided by %s, spent sleeping: D and C %s ms, B %s ms (workload 1) and %s ms "
                + "(workload 2).", fmt(40 / profile.timeScale()), fmt(1 * profile.timeScale()),
                fmt(43 * profile.timeScale()), fmt(91 * profile.timeScale()));
        line(md, "Efficiency is (T1 / p) / Tp with T1 the tasks' summed execution times; the ceiling is the "
                + "efficiency of a zero-overhead greedy schedule of the same DAG on p workers, its tasks taking "
                + "the time they took (the nominal load plus their measured mean overrun); ratio = efficiency / "
                + "ceiling. Every run's value of F(n) and task count were checked: %s.",
                r.allCorrect() ? "all right" : "SOME WRONG (see results.json)");
        md.append('\n');

        md.append("## Efficiency against n (Fig. 5)\n\n");
        for (Workload w : PaperBench.WORKLOADS) {
            efficiencyTable(md, r, w);
        }
        targets(md, r);

        tablePerWorkload(md, r, "Where the idle time went (Fig. 6)", "Worker idle time, summed over producers, "
                + "split into the initial transient (each worker's wait for its first task), the termination "
                + "transient (each worker's wait after its last task, until the result) and the steady state (every "
                + "other wait). The paper: at 0.99 of optimal, the transients were 25%% of idle time and the initial "
                + "one 0.1%%. The limit columns split the idle time of the zero-overhead schedule the same way.",
                PaperReport::idleTable);
        if (r.profile().servers().size() > 1) {
            tablePerWorkload(md, r, "The network's own cost", "CPU time of the servers' event loop threads during "
                    + "the median run (what the servers spent scheduling, mirroring, diffusing and on the sockets), "
                    + "and per task. The tasks' own time is not in it; on a machine where servers and producers "
                    + "share the cores, this is what the network's messages wait for.", PaperReport::cpuTable);
        }

        md.append("## Prefetch on and off\n\n");
        prefetchTable(md, r);

        if (profile.fastProducers() > 0) {
            md.append("## Mixed processor types\n\n");
            mixedTable(md, r);
        }

        md.append("## Files\n\n");
        for (Path f : files) {
            md.append("- `").append(f.getFileName()).append("`\n");
        }
        md.append("- `report.md`\n");
        return md.toString();
    }

    /** A section: its heading, an introduction (a {@link #line} format), then one table per workload. */
    private static void tablePerWorkload(StringBuilder md, Results r, String heading, String intro,
                                         WorkloadTable table) {
        md.append("## ").append(heading).append("\n\n");
        line(md, intro);
        md.append('\n');
        for (Workload w : PaperBench.WORKLOADS) {
            table.write(md, r, w);
        }
    }

    private interface WorkloadTable {
        void write(StringBuilder md, Results r, Workload w);
    }

    private static void efficiencyTable(StringBuilder md, Results r, Workload w) {
        List<Integer> servers = r.profile().servers();
        md.append("Workload ").append(w.number()).append(" (B = ").append(fmt(w.leafMs() * r.profile().timeScale()))
                .append(" ms):\n\n| n | tasks | ceiling |");
        for (int s : servers) {
            md.append(" ").append(s).append(s == 1 ? " server" : " servers").append(" (ratio) |");
        }
        md.append(" paper |\n|---|---|---|");
        md.append("---|".repeat(servers.size() + 1)).append('\n');
        for (int n = r.profile().nMin(); n <= r.profile().nMax(); n++) {
            Optional<Point> any = find(r, Experiment.SCALING, w.number(), servers.get(0), n);
            if (any.isEmpty()) {
                continue;
            }
            md.append("| ").append(n).append(" | ").append(any.get().median().tasks()).append(" | ")
                    .append(fmt3(any.get().median().ceiling())).append(" |");
            for (int s : servers) {
                Optional<Point> p = find(r, Experiment.SCALING, w.number(), s, n);
                md.append(p.map(x -> " " + fmt3(x.median().efficiency()) + " (" + fmt3(x.ratio()) + ")")
                        .orElse(" –")).append(" |");
            }
            md.append(" ").append(PAPER_FIG5.containsKey(n) ? fmt(PAPER_FIG5.get(n)) + " of optimal" : "")
                    .append(" |\n");
        }
        md.append('\n');
    }

    private static void targets(StringBuilder md, Results r) {
        md.append("Targets:\n\n");
        for (Workload w : PaperBench.WORKLOADS) {
            List<String> missed = new ArrayList<>();
            for (Point p : r.of(Experiment.SCALING, w.number(), 1)) {
                if (p.ratio() < 0.97) {
                    missed.add("n=" + p.n() + " (" + fmt3(p.ratio()) + ")");
                }
            }
            line(md, "- Workload %d, 1 server, efficiency ≥ 0.97 × ceiling at every n: %s.", w.number(),
                    missed.isEmpty() ? "met" : "not met at " + String.join(", ", missed));
            int largest = r.profile().servers().stream().mapToInt(Integer::intValue).max().orElse(1);
            if (largest > 1) {
                List<String> apart = new ArrayList<>();
                for (Point p : r.of(Experiment.SCALING, w.number(), largest)) {
                    Optional<Point> one = find(r, Experiment.SCALING, w.number(), 1, p.n());
                    double gap = one.map(o -> o.median().efficiency() - p.median().efficiency()).orElse(0.0);
                    if (gap > 0.02) {
                        apart.add("n=" + p.n() + " (" + fmt3(gap) + " below)");
                    }
                }
                line(md, "- Workload %d, %d servers within 0.02 of 1 server: %s.", w.number(), largest,
                        apart.isEmpty() ? "met" : "not met at " + String.join(", ", apart));
            }
            find(r, Experiment.SCALING, w.number(), 1, r.profile().nMax()).ifPresent(p -> line(md,
                    "- Workload %d, 1 server, F(%d): initial-transient idle %s%% of all idle time (target ≤ 1%%, "
                            + "paper 0.1%%): %s. The zero-overhead schedule itself has %s%%: the DAG needs "
                            + "several decomposition levels before every worker can have a task. What the run "
                            + "waited beyond that schedule's start-up (the runtime's own cost of spreading the "
                            + "first tasks) is %s%% of all idle time.", w.number(), p.n(),
                    fmt(percent(p, Kind.INITIAL)), percent(p, Kind.INITIAL) <= 1 ? "met" : "not met",
                    fmt(100 * p.median().limitInitialShare()), fmt(startUpBeyondLimit(p))));
        }
        md.append('\n');
    }

    private enum Kind { INITIAL, STEADY, TERMINATION }

    /** Start-up idle above the zero-overhead schedule's, as a percentage of all idle time (negative: below it). */
    private static double startUpBeyondLimit(Point p) {
        long total = p.median().idle().totalNanos();
        return total == 0 ? 0 : percent(p, Kind.INITIAL) - 100 * p.median().limitIdleInitialS() * 1e9 / total;
    }

    private static double percent(Point p, Kind kind) {
        var idle = p.median().idle();
        if (idle.totalNanos() == 0) {
            return 0;
        }
        long part = switch (kind) {
            case INITIAL -> idle.initialNanos();
            case STEADY -> idle.steadyNanos();
            case TERMINATION -> idle.terminationNanos();
        };
        return 100.0 * part / idle.totalNanos();
    }

    private static void idleTable(StringBuilder md, Results r, Workload w) {
        md.append("Workload ").append(w.number()).append(":\n\n")
                .append("| servers | n | idle (s) | idle / (p·Tp) | initial | steady | termination | limit: initial "
                        + "| limit: termination |\n")
                .append("|---|---|---|---|---|---|---|---|---|\n");
        for (int s : r.profile().servers()) {
            for (Point p : r.of(Experiment.SCALING, w.number(), s)) {
                double idleS = p.median().idle().totalNanos() / 1e9;
                line(md, "| %d | %d | %.3f | %.3f | %s%% | %s%% | %s%% | %s%% | %s%% |", s, p.n(), idleS,
                        idleS / (p.median().producers() * p.median().wallS()), fmt(percent(p, Kind.INITIAL)),
                        fmt(percent(p, Kind.STEADY)), fmt(percent(p, Kind.TERMINATION)),
                        fmt(100 * p.median().limitInitialShare()), fmt(100 * p.median().limitTerminationShare()));
            }
        }
        md.append('\n');
    }

    private static void cpuTable(StringBuilder md, Results r, Workload w) {
        List<Integer> servers = r.profile().servers();
        md.append("Workload ").append(w.number()).append(", servers' CPU per run in ms (per task in µs):\n\n| n |");
        for (int s : servers) {
            md.append(" ").append(s).append(s == 1 ? " server" : " servers").append(" |");
        }
        md.append("\n|---|").append("---|".repeat(servers.size())).append('\n');
        for (int n = r.profile().nMin(); n <= r.profile().nMax(); n++) {
            md.append("| ").append(n).append(" |");
            for (int s : servers) {
                Optional<Point> p = find(r, Experiment.SCALING, w.number(), s, n);
                md.append(p.map(x -> String.format(" %.0f (%.0f)", x.median().serverCpuS() * 1e3,
                        x.median().serverCpuS() * 1e6 / Math.max(1, x.median().tasks()))).orElse(" –")).append(" |");
            }
            md.append('\n');
        }
        md.append('\n');
    }

    private static void prefetchTable(StringBuilder md, Results r) {
        line(md, "One server, %d producers (the paper used 16 processors), workload 1.", r.profile().prefetchProducers());
        md.append('\n');
        md.append("| n | ceiling | prefetch on | prefetch off | on − off | paper on | paper off |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (int n : r.profile().prefetchNs()) {
            Optional<Point> on = prefetch(r, n, true);
            Optional<Point> off = prefetch(r, n, false);
            if (on.isEmpty() || off.isEmpty()) {
                continue;
            }
            double[] paper = PAPER_PREFETCH.get(n);
            double diff = on.get().median().efficiency() - off.get().median().efficiency();
            line(md, "| %d | %s | %s | %s | %+.3f (%+.1f%%) | %s | %s |", n, fmt3(on.get().median().ceiling()),
                    fmt3(on.get().median().efficiency()), fmt3(off.get().median().efficiency()), diff,
                    100 * diff / off.get().median().efficiency(), paper == null ? "" : fmt(paper[0]),
                    paper == null ? "" : fmt(paper[1]));
        }
        md.append('\n');
        r.profile().prefetchNs().stream().filter(n -> n == 15).findFirst().ifPresent(n -> {
            Optional<Point> on = prefetch(r, n, true);
            Optional<Point> off = prefetch(r, n, false);
            if (on.isPresent() && off.isPresent()) {
                double a = on.get().median().efficiency();
                double b = off.get().median().efficiency();
                line(md, "Target, prefetch on ≥ off at n = 15: %s (on %s, off %s: %+.1f%%).", a >= b ? "met" : "not met",
                        fmt3(a), fmt3(b), 100 * (a - b) / b);
                md.append('\n');
            }
        });
    }

    private static void mixedTable(StringBuilder md, Results r) {
        PaperBench.Profile profile = r.profile();
        line(md, "One server, %d producers: %d of reference speed and %d of speed %.3f (the paper's Quad against "
                        + "its Dual 512: 1720 / 1377 ms per boundary task), workload 1. T1(i) for a type is the "
                        + "reference run's T1 divided by its speed; the composite base case is their mean over the "
                        + "producers (paper §5), speedup S = composite / Tp, efficiency S / p; the ceiling is a "
                        + "greedy schedule on workers of the same speeds.", profile.producers(),
                profile.producers() - profile.fastProducers(), profile.fastProducers(), PaperBench.QUAD_SPEED);
        md.append('\n');
        md.append("| n | composite T1 (s) | Tp (s) | speedup S | efficiency | ceiling | ratio |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (Point p : r.points()) {
            if (p.experiment() != Experiment.MIXED) {
                continue;
            }
            var o = p.median();
            line(md, "| %d | %.2f | %.3f | %.1f | %s | %s | %s |", o.n(), o.t1S(), o.wallS(), o.t1S() / o.wallS(),
                    fmt3(o.efficiency()), fmt3(o.ceiling()), fmt3(p.ratio()));
        }
        md.append('\n');
    }

    private static Optional<Point> find(Results r, Experiment e, int workload, int servers, int n) {
        return r.of(e, workload, servers).stream().filter(p -> p.n() == n).findFirst();
    }

    private static Optional<Point> prefetch(Results r, int n, boolean on) {
        return r.points().stream().filter(p -> p.experiment() == Experiment.PREFETCH && p.n() == n
                && p.median().prefetch() == on).findFirst();
    }

    private static void line(StringBuilder md, String format, Object... args) {
        md.append(String.format(Locale.ROOT, format, args)).append('\n');
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e9 ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.3g", v);
    }

    private static String fmt3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    // ---------------------------------------------------------------- charts

    private static List<Path> charts(Results r, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Path> files = new ArrayList<>();
        for (Workload w : PaperBench.WORKLOADS) {
            files.add(save(efficiencyChart(r, w), dir.resolve("fig5-efficiency-workload" + w.number() + ".png")));
            files.add(save(idleChart(r, w), dir.resolve("fig6-idle-workload" + w.number() + ".png")));
        }
        files.add(save(prefetchChart(r), dir.resolve("prefetch.png")));
        if (r.profile().fastProducers() > 0) {
            files.add(save(mixedChart(r), dir.resolve("mixed-speeds.png")));
        }
        return files;
    }

    private static Path save(JFreeChart chart, Path file) throws IOException {
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        return file;
    }

    /** Fig. 5: efficiency against n for each network size, the ceiling, and the paper's two quoted points. */
    private static JFreeChart efficiencyChart(Results r, Workload w) {
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(series("zero-overhead ceiling", r.of(Experiment.SCALING, w.number(), 1),
                p -> p.median().ceiling()));
        for (int s : r.profile().servers()) {
            data.addSeries(series(s + (s == 1 ? " server" : " servers"), r.of(Experiment.SCALING, w.number(), s),
                    p -> p.median().efficiency()));
        }
        XYSeries paper = new XYSeries("paper (of optimal, 60 processors)");
        PAPER_FIG5.forEach((n, v) -> {
            if (n >= r.profile().nMin() && n <= r.profile().nMax()) {
                paper.add(n, v);
            }
        });
        data.addSeries(paper);
        JFreeChart chart = ChartFactory.createXYLineChart("Efficiency of F(n), workload " + w.number() + ", "
                        + r.profile().producers() + " producers", "n", "efficiency (T1 / p) / Tp", data,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setSeriesStroke(0, new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {6f, 4f}, 0f));
        renderer.setSeriesPaint(0, Color.GRAY);
        int paperSeries = data.getSeriesCount() - 1;
        renderer.setSeriesLinesVisible(paperSeries, false);
        renderer.setSeriesPaint(paperSeries, Color.BLACK);
        renderer.setSeriesShape(paperSeries, new Ellipse2D.Double(-5, -5, 10, 10));
        plot.setRenderer(renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        NumberAxis x = (NumberAxis) plot.getDomainAxis();
        x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        double lowest = 1.0;
        for (int i = 0; i < data.getSeriesCount(); i++) {
            lowest = Math.min(lowest, data.getSeries(i).getMinY());
        }
        ((NumberAxis) plot.getRangeAxis()).setRange(Math.max(0, Math.floor((lowest - 0.05) * 10) / 10), 1.0);
        return chart;
    }

    private static XYSeries series(String name, List<Point> points, ToDoubleFunction<Point> y) {
        XYSeries s = new XYSeries(name);
        for (Point p : points) {
            s.add(p.n(), y.applyAsDouble(p));
        }
        return s;
    }

    /** Fig. 6: each run's idle time, in percent, by phase. */
    private static JFreeChart idleChart(Results r, Workload w) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int s : r.profile().servers()) {
            for (Point p : r.of(Experiment.SCALING, w.number(), s)) {
                String column = "F(" + p.n() + ")" + (r.profile().servers().size() > 1 ? " " + s + "s" : "");
                data.addValue(percent(p, Kind.INITIAL), "initial transient", column);
                data.addValue(percent(p, Kind.STEADY), "steady state", column);
                data.addValue(percent(p, Kind.TERMINATION), "termination transient", column);
            }
        }
        JFreeChart chart = ChartFactory.createStackedBarChart("Idle time by phase, workload " + w.number()
                        + (r.profile().servers().size() > 1 ? " (\"3s\": on 3 servers)" : ""), "run", "% of idle time", data, PlotOrientation.VERTICAL, true,
                false, false);
        chart.getCategoryPlot().setBackgroundPaint(Color.WHITE);
        chart.getCategoryPlot().setRangeGridlinePaint(Color.LIGHT_GRAY);
        chart.getCategoryPlot().getDomainAxis().setCategoryLabelPositions(
                CategoryLabelPositions.UP_45);
        return chart;
    }

    /** Efficiency with prefetch on and off, beside the paper's. */
    private static JFreeChart prefetchChart(Results r) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int n : r.profile().prefetchNs()) {
            String column = "F(" + n + ")";
            prefetch(r, n, true).ifPresent(p -> data.addValue(p.median().efficiency(), "prefetch on", column));
            prefetch(r, n, false).ifPresent(p -> data.addValue(p.median().efficiency(), "prefetch off", column));
            prefetch(r, n, true).ifPresent(p -> data.addValue(p.median().ceiling(), "ceiling", column));
            double[] paper = PAPER_PREFETCH.get(n);
            if (paper != null) {
                data.addValue(paper[0], "paper, on", column);
                data.addValue(paper[1], "paper, off", column);
            }
        }
        JFreeChart chart = ChartFactory.createBarChart("Prefetch on and off, " + r.profile().prefetchProducers()
                + " producers, workload 1", "computation", "efficiency", data, PlotOrientation.VERTICAL, true,
                false, false);
        chart.getCategoryPlot().setBackgroundPaint(Color.WHITE);
        chart.getCategoryPlot().setRangeGridlinePaint(Color.LIGHT_GRAY);
        return chart;
    }

    /** The mixed-speed experiment's efficiency against the composite base case, and its ceiling. */
    private static JFreeChart mixedChart(Results r) {
        List<Point> mixed = r.points().stream().filter(p -> p.experiment() == Experiment.MIXED).toList();
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(series("ceiling (same speeds)", mixed, p -> p.median().ceiling()));
        data.addSeries(series("measured", mixed, p -> p.median().efficiency()));
        data.addSeries(series("1 server, one speed", r.of(Experiment.SCALING, 1, 1), p -> p.median().efficiency()));
        JFreeChart chart = ChartFactory.createXYLineChart("Mixed processor types: " + r.profile().fastProducers()
                        + " of " + r.profile().producers() + " producers " + fmt(PaperBench.QUAD_SPEED)
                        + "x as fast, workload 1", "n", "efficiency against the composite base case", data,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setRenderer(new XYLineAndShapeRenderer(true, true));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ((NumberAxis) plot.getDomainAxis()).setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(false);
        return chart;
    }
}
