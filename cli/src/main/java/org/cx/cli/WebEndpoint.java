package org.cx.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The web side of a server or producer process: on a server, the dashboard ({@code GET /}, a page that reads
 * {@code /status.json} every second: the whole network as {@code cx status --json} shows it); and a Prometheus
 * endpoint ({@code GET /metrics}) for this process: every numeric and boolean attribute of its CX
 * MBeans ({@code org.cx:type=TaskServer,name=s0} → {@code cx_task_server_tasks_completed{name="s0"}}), found again at
 * each scrape so that computations that start or end are seen, and the JVM's own (memory, GC, threads, CPU, uptime).
 * It reads what the MBeans already hold; a scrape costs the process nothing between scrapes.
 */
final class WebEndpoint implements AutoCloseable {
    private static final Pattern CAMEL = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])");
    private static final Set<String> NUMERIC = Set.of("int", "long", "double", "float", "short", "boolean",
            Integer.class.getName(), Long.class.getName(), Double.class.getName(), Float.class.getName(),
            Short.class.getName(), Boolean.class.getName());

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    /** The gauges made for each MBean, to remove when it goes. */
    private final Map<ObjectName, List<Meter>> bound = new HashMap<>();
    private final HttpServer http;
    /** Guards the dashboard's last status: a slow read of the network must not hold up a scrape. */
    private final Object statusLock = new Object();
    /** The dashboard's last status, and when it was read. */
    private byte[] lastStatus;
    private long lastStatusNanos;

    private WebEndpoint(HttpServer http) {
        this.http = http;
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /** Serves {@code /metrics} on {@code host:port} (0: a free port) until closed; {@link #dashboard} adds the rest. */
    static WebEndpoint start(String host, int port) throws IOException {
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw org.cx.wire.Listening.failure(host, port, e, "the web port: choose another --http-port");
        }
        WebEndpoint endpoint = new WebEndpoint(http);
        http.createContext("/metrics", endpoint::scrape);
        http.setExecutor(Executors.newFixedThreadPool(2, r -> { // a slow dashboard read leaves scrapes a thread
            Thread t = new Thread(r, "cx-web");
            t.setDaemon(true);
            return t;
        }));
        http.start();
        return endpoint;
    }

    /** {@code http://HOST:PORT/metrics}, with the host others reach it at. */
    String url(String advertisedHost) {
        return base(advertisedHost) + "metrics";
    }

    /** {@code http://HOST:PORT/}. */
    String base(String advertisedHost) {
        return "http://" + advertisedHost + ":" + http.getAddress().getPort() + "/";
    }

    /**
     * Serves the dashboard at {@code /}, its data from {@code status} (the network as JSON), read at most twice a
     * second however many pages are open.
     */
    void dashboard(StatusSource status) {
        byte[] page;
        try (var in = WebEndpoint.class.getResourceAsStream("dashboard.html")) {
            page = in.readAllBytes();
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("the dashboard page is missing from the cx jar", e);
        }
        http.createContext("/", exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                if (!exchange.getRequestMethod().equals("GET")) {
                    exchange.sendResponseHeaders(405, -1);
                } else if (path.equals("/")) {
                    send(exchange, 200, "text/html; charset=utf-8", page);
                } else if (path.equals("/status.json")) {
                    try {
                        send(exchange, 200, "application/json", cachedStatus(status));
                    } catch (IOException | RuntimeException e) {
                        send(exchange, 503, "text/plain; charset=utf-8", String.valueOf(e.getMessage())
                                .getBytes(StandardCharsets.UTF_8));
                    }
                } else {
                    send(exchange, 404, "text/plain; charset=utf-8", ("no " + path + " here: the dashboard is at /"
                            + " and the metrics at /metrics").getBytes(StandardCharsets.UTF_8));
                }
            }
        });
    }

    /** The network as JSON, for the dashboard. */
    @FunctionalInterface
    interface StatusSource {
        String json() throws IOException;
    }

    private byte[] cachedStatus(StatusSource status) throws IOException {
        synchronized (statusLock) {
            long now = System.nanoTime();
            if (lastStatus == null || now - lastStatusNanos > 500_000_000L) {
                lastStatus = status.json().getBytes(StandardCharsets.UTF_8);
                lastStatusNanos = now;
            }
            return lastStatus;
        }
    }

    private static void send(HttpExchange exchange, int code, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private void scrape(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            String text;
            synchronized (this) {
                bindMBeans();
                text = registry.scrape();
            }
            send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Adds gauges for CX MBeans registered since the last scrape, and removes those of MBeans gone. */
    private void bindMBeans() {
        Set<ObjectName> present;
        try {
            present = mbeans.queryNames(new ObjectName("org.cx:*"), null);
        } catch (JMException e) {
            throw new IllegalStateException(e);
        }
        bound.entrySet().removeIf(e -> {
            if (present.contains(e.getKey())) {
                return false;
            }
            e.getValue().forEach(registry::remove);
            return true;
        });
        for (ObjectName name : present) {
            if (!bound.containsKey(name)) {
                bound.put(name, gauges(name));
            }
        }
    }

    private List<Meter> gauges(ObjectName name) {
        List<Meter> made = new ArrayList<>();
        List<Tag> tags = new ArrayList<>();
        name.getKeyPropertyList().forEach((k, v) -> {
            if (!k.equals("type")) {
                tags.add(Tag.of(k, v.startsWith("\"") ? ObjectName.unquote(v) : v));
            }
        });
        String prefix = "cx." + words(name.getKeyProperty("type")) + ".";
        MBeanAttributeInfo[] attributes;
        try {
            attributes = mbeans.getMBeanInfo(name).getAttributes();
        } catch (JMException e) {
            return made; // gone already
        }
        for (MBeanAttributeInfo a : attributes) {
            if (a.isReadable() && NUMERIC.contains(a.getType())) {
                made.add(Gauge.builder(prefix + words(a.getName()), () -> read(name, a.getName()))
                        .tags(tags).description(a.getDescription()).register(registry));
            }
        }
        return made;
    }

    private double read(ObjectName name, String attribute) {
        try {
            Object value = mbeans.getAttribute(name, attribute);
            return value instanceof Boolean b ? (b ? 1 : 0) : value instanceof Number n ? n.doubleValue() : Double.NaN;
        } catch (JMException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** "TasksCompleted" → "tasks.completed" (Prometheus writes the dots as underscores). */
    static String words(String camel) {
        return CAMEL.matcher(camel).replaceAll(".").toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public void close() {
        http.stop(0);
        ((java.util.concurrent.ExecutorService) http.getExecutor()).shutdownNow();
        registry.close();
    }
}
