package org.cx.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.ChannelHandlerContext;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.fs.FsException;
import org.cx.fs.FsException.Code;
import org.cx.fs.FsHandler;
import org.cx.fs.FsListener;
import org.cx.security.Tls;
import org.cx.wire.Usage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accounting service: task servers send it usage in batches ({@code record}), people and programs ask it for
 * balances, reports, statements and prices. It speaks the file service's frames (JSON requests and replies, TLS with
 * the network's credentials); requests run on threads of their own, never on the connections' event loops, and a
 * batch is acknowledged only once it is committed.
 *
 * <p>Who may do what: task servers and admins record usage and see everything; admins load prices; a user sees their
 * own balance, reports and statement.
 */
public final class AccountingService implements AccountingMXBean, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AccountingService.class);
    static final ObjectMapper MAPPER = new ObjectMapper();
    /** The most rows one batch may carry. */
    public static final int MAX_BATCH_ROWS = 50_000;

    private final AccountingStore store;
    private final Tls tls;
    private final FsListener listener;
    /** Writes, one at a time, in the order they came. */
    private final ExecutorService writes = Executors.newSingleThreadExecutor(r -> daemon(r, "cx-accounting-write"));
    private final ExecutorService reads = Executors.newFixedThreadPool(2, r -> daemon(r, "cx-accounting-read"));
    private final AtomicLong batchesRecorded = new AtomicLong();
    private final AtomicLong batchesRepeated = new AtomicLong();
    private final AtomicLong rowsRecorded = new AtomicLong();

    public AccountingService(AccountingStore store, String host, int port, Tls tls) throws FsException {
        this.store = store;
        this.tls = tls;
        this.listener = new FsListener("cx-accounting", host, port, tls, Handler::new);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public int port() {
        return listener.port();
    }

    public AccountingStore store() {
        return store;
    }

    @Override
    public long getBatchesRecorded() {
        return batchesRecorded.get();
    }

    @Override
    public long getBatchesRepeated() {
        return batchesRepeated.get();
    }

    @Override
    public long getRowsReceived() {
        return rowsRecorded.get();
    }

    @Override
    public int getPricesVersion() {
        return store.prices().number();
    }

    @Override
    public long getRowsStored() {
        try {
            return store.size()[0];
        } catch (SQLException e) {
            return -1;
        }
    }

    private final class Handler extends FsHandler {
        @Override
        protected Tls tls() {
            return tls;
        }

        @Override
        protected void request(ChannelHandlerContext ctx, String op, ObjectNode request) throws FsException {
            switch (op) {
                case "record" -> {
                    requireServer(op);
                    String id = text(request, "id");
                    List<Usage> rows = rows(request.path("rows"));
                    writes.execute(() -> answer(ctx, op, () -> {
                        boolean recorded = store.record(id, rows);
                        (recorded ? batchesRecorded : batchesRepeated).incrementAndGet();
                        rowsRecorded.addAndGet(recorded ? rows.size() : 0);
                        return object().put("recorded", recorded);
                    }));
                }
                case "load-prices" -> {
                    if (!caller.admin() && !server) {
                        throw new FsException(Code.EACCES, "only admins may load prices (" + caller.name() + " is "
                                + "not one)");
                    }
                    PriceTable table;
                    try {
                        table = PriceTable.parse(text(request, "text"));
                    } catch (PriceTable.InvalidPricesException e) {
                        throw new FsException(Code.EINVAL, e.getMessage());
                    }
                    Instant from = Instant.ofEpochMilli(request.path("from").asLong(0));
                    String by = caller.name();
                    writes.execute(() -> answer(ctx, op, () -> version(store.loadPrices(table, by, from))));
                }
                case "prices" -> reads.execute(() -> answer(ctx, op, () -> version(store.prices())));
                case "balance" -> {
                    String user = visibleUser(request);
                    Report.Format format = format(request);
                    reads.execute(() -> answer(ctx, op, () -> object().put("text", Report.balances(
                            store.balances(user), format))));
                }
                case "report" -> {
                    String user = visibleUser(request);
                    Report.By by = by(request);
                    Report.Format format = format(request);
                    reads.execute(() -> answer(ctx, op, () -> object().put("text", Report.rows(
                            store.report(from(request), to(request), by, user, Report.Side.EITHER), by, format))));
                }
                case "statement" -> {
                    String user = visibleUser(request);
                    if (user == null) {
                        throw new FsException(Code.EINVAL, "a statement is of one user: name one with 'user'");
                    }
                    reads.execute(() -> answer(ctx, op, () -> object().put("text",
                            Statement.of(store, user, from(request), to(request)))));
                }
                case "series" -> {
                    String user = visibleUser(request);
                    reads.execute(() -> answer(ctx, op, () -> {
                        ArrayNode points = MAPPER.createArrayNode();
                        for (Report.Point p : store.series(from(request), to(request), user)) {
                            points.addArray().add(p.intervalStart()).add(p.charged()).add(p.credited());
                        }
                        ObjectNode reply = object();
                        reply.set("points", points);
                        return reply;
                    }));
                }
                default -> throw new FsException(Code.EINVAL, "unknown request '" + op + "' (the accounting service "
                        + "knows record, load-prices, prices, balance, report, statement and series)");
            }
        }

        /** The user a request may see: any (or null: all) for servers and admins, else only the caller. */
        private String visibleUser(ObjectNode request) throws FsException {
            String asked = request.path("user").asText("");
            if (server || caller.admin()) {
                return asked.isEmpty() ? null : asked;
            }
            if (!asked.isEmpty() && !asked.equals(caller.name())) {
                throw new FsException(Code.EACCES, caller.name() + " may see only their own accounts, not "
                        + asked + "'s");
            }
            return caller.name();
        }

        /** Replies to {@code op} with what {@code answer} gives, or with the database's error. */
        private void answer(ChannelHandlerContext ctx, String op, Answer answer) {
            ObjectNode reply;
            try {
                reply = answer.get();
            } catch (SQLException | RuntimeException e) {
                LOG.warn("accounting: {} failed", op, e);
                reply = object().put("error", op + " failed in the database: " + e.getMessage()).put("code", "EIO");
            }
            reply(ctx, reply);
        }
    }

    private interface Answer {
        ObjectNode get() throws SQLException;
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    private static ObjectNode version(PriceBook.Version v) {
        return object().put("version", v.number()).put("from", v.inForceFrom().toEpochMilli())
                .put("by", v.loadedBy()).put("text", v.table().format());
    }

    private static String text(JsonNode request, String name) throws FsException {
        JsonNode v = request.get(name);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new FsException(Code.EINVAL, "'" + request.path("op").asText() + "' needs the text field '" + name
                    + "'");
        }
        return v.asText();
    }

    private static Instant from(JsonNode request) {
        return Instant.ofEpochMilli(request.path("from").asLong(0));
    }

    private static Instant to(JsonNode request) {
        return Instant.ofEpochMilli(request.path("to").asLong(Long.MAX_VALUE));
    }

    private static Report.Format format(JsonNode request) throws FsException {
        return enumOf(Report.Format.class, request.path("format").asText("table"), "format");
    }

    private static Report.By by(JsonNode request) throws FsException {
        return enumOf(Report.By.class, request.path("by").asText("user"), "by");
    }

    private static <E extends Enum<E>> E enumOf(Class<E> type, String text, String field) throws FsException {
        try {
            return Enum.valueOf(type, text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new FsException(Code.EINVAL, "'" + field + "' is " + text + ", not one of "
                    + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT));
        }
    }

    /** The rows of a {@code record} request, each checked. */
    static List<Usage> rows(JsonNode rows) throws FsException {
        if (!rows.isArray() || rows.size() > MAX_BATCH_ROWS) {
            throw new FsException(Code.EINVAL, "a batch's 'rows' must be an array of at most " + MAX_BATCH_ROWS
                    + " rows");
        }
        List<Usage> out = new ArrayList<>(rows.size());
        for (JsonNode r : rows) {
            try {
                out.add(UsageCodec.decode(r));
            } catch (IllegalArgumentException e) {
                throw new FsException(Code.EINVAL, "row " + out.size() + " of the batch: " + e.getMessage());
            }
        }
        return out;
    }

    @Override
    public void close() {
        listener.close();
        writes.shutdown();
        reads.shutdown();
        try {
            writes.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
