package org.cx.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.cx.fs.FsConnection;
import org.cx.fs.FsException;
import org.cx.security.Tls;
import org.cx.wire.Usage;

/** One connection to the accounting service, as the {@code cx accounting} commands and task servers hold it. */
public final class AccountingClient implements AutoCloseable {
    private final FsConnection connection;
    private final String address;

    private AccountingClient(String address, FsConnection connection) {
        this.address = address;
        this.connection = connection;
    }

    /**
     * Connects to the accounting service at {@code address} (host:port): with {@code tls} as its credential's
     * holder, else plainly as {@code user}.
     */
    public static AccountingClient connect(String address, Tls tls, String user) throws FsException {
        try {
            return new AccountingClient(address, FsConnection.open(address, tls, user));
        } catch (FsException e) {
            // The connection's own words name the file service: say them of this one.
            String why = e.getCause() instanceof java.io.IOException io && !(io instanceof FsException)
                    ? io.getMessage() : e.getMessage();
            throw new FsException(e.code(), "cannot reach the accounting service at " + address + ": " + why
                    + (e.getCause() instanceof java.net.ConnectException ? " (is cx accounting serve running there?)"
                    : ""), e);
        }
    }

    public String address() {
        return address;
    }

    /** Who the service takes this connection's caller for. */
    public String identity() {
        return connection.identity();
    }

    /** Records {@code rows} as batch {@code id}; true if new, false if the service had recorded it before. */
    public boolean record(String id, List<Usage> rows) throws FsException {
        ObjectNode request = op("record").put("id", id);
        ArrayNode array = request.putArray("rows");
        rows.forEach(r -> UsageCodec.encode(r, array));
        return connection.call(request).path("recorded").asBoolean();
    }

    /** Loads a prices file, in force from {@code from} (null: now); returns the version, as the service shows it. */
    public JsonNode loadPrices(String text, Instant from) throws FsException {
        return connection.call(op("load-prices").put("text", text).put("from", from == null ? 0
                : from.toEpochMilli()));
    }

    /** The prices in force: {@code version}, {@code from}, {@code by} and the table's {@code text}. */
    public JsonNode prices() throws FsException {
        return connection.call(op("prices"));
    }

    /** Balances of every user, or of {@code user}, written as {@code format}. */
    public String balance(String user, Report.Format format) throws FsException {
        return connection.call(op("balance").put("user", user == null ? "" : user)
                .put("format", format.name())).path("text").asText();
    }

    /** A report of usage from {@code from} to {@code to}, a row per {@code by}, written as {@code format}. */
    public String report(Instant from, Instant to, Report.By by, String user, Report.Format format)
            throws FsException {
        return connection.call(span(op("report"), from, to).put("by", by.name()).put("user", user == null ? ""
                : user).put("format", format.name())).path("text").asText();
    }

    /** {@code user}'s statement for the period. */
    public String statement(String user, Instant from, Instant to) throws FsException {
        return connection.call(span(op("statement"), from, to).put("user", user == null ? "" : user)).path("text")
                .asText();
    }

    /** Credits charged and credited per price interval. */
    public List<Report.Point> series(Instant from, Instant to, String user) throws FsException {
        JsonNode reply = connection.call(span(op("series"), from, to).put("user", user == null ? "" : user));
        List<Report.Point> points = new ArrayList<>();
        for (JsonNode p : reply.path("points")) {
            points.add(new Report.Point(p.get(0).asLong(), p.get(1).asDouble(), p.get(2).asDouble()));
        }
        return points;
    }

    private static ObjectNode op(String op) {
        return AccountingService.object().put("op", op);
    }

    private static ObjectNode span(ObjectNode request, Instant from, Instant to) {
        return request.put("from", from == null ? 0 : from.toEpochMilli())
                .put("to", to == null ? Long.MAX_VALUE : to.toEpochMilli());
    }

    @Override
    public void close() {
        connection.close();
    }
}
