package org.cx.accounting;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** A user's statement: what their computations were charged, what their producers were credited, and the balance. */
final class Statement {
    private Statement() {
    }

    static String of(AccountingStore store, String user, Instant from, Instant to) throws SQLException {
        List<Report.Row> charged = store.report(from, to, Report.By.COMPUTATION, user, Report.Side.CONSUMER);
        List<Report.Row> credited = store.report(from, to, Report.By.HOST, user, Report.Side.CONTRIBUTOR);
        Report.Balance all = store.balances(user).get(0);
        return "Statement of " + user + ", " + span(from, to) + "\n\n"
                + "Charged, per computation:\n"
                + Report.rows(charged, Report.By.COMPUTATION, Report.Format.TABLE).indent(2) + "\n"
                + "Credited, per producer:\n"
                + Report.rows(credited, Report.By.HOST, Report.Format.TABLE).indent(2) + "\n"
                + "Charged in this period:   " + Report.credits(charged.stream().mapToDouble(Report.Row::charged).sum())
                + "\nCredited in this period:  "
                + Report.credits(credited.stream().mapToDouble(Report.Row::credited).sum())
                + "\nBalance, all time:        " + Report.credits(all.balance()) + "\n";
    }

    private static String span(Instant from, Instant to) {
        return (from.toEpochMilli() == 0 ? "from the start" : "from " + from)
                + (to.toEpochMilli() == Long.MAX_VALUE ? " to now" : " to " + to);
    }
}
