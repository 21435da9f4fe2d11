package org.cx.system;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.cx.api.Computation;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.consumer.NetworkProbe;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.cx.wire.Message;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web dashboard, opened in headless Chromium (Debian's {@code chromium}) as a person would: what the page shows
 * (servers, producers, the running computation) is the network's real state, asked of the network itself; it follows
 * a server's death and lists it among the repairs. The screenshot is kept in {@code target/dashboard.png}.
 */
class DashboardTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Pattern ROW = Pattern.compile("<tr data-(server|producer|computation)=\"([^\"]*)\"");

    @Test
    void thePageShowsTheNetworksServersProducersAndComputationsAndFollowsAServersDeath() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM), "Debian's chromium is not installed here (.ci/run "
                + "installs it): the dashboard is not opened in a browser");
        List<ChildProcess> processes = new ArrayList<>();
        try {
            ChildProcess root = start(processes, "d0", "server", "--port", "0", "--name", "d0", "--http-port", "0");
            String rootLine = root.awaitLine("listening on", WAIT);
            String address = rootLine.substring(rootLine.indexOf("listening on ") + 13).split("[ ;]")[0];
            String dashboard = root.awaitLine("dashboard: ", WAIT).split(" ")[1];
            ChildProcess second = start(processes, "d1", "server", "--port", "0", "--name", "d1", "--join", address);
            second.awaitLine("listening on", WAIT);
            for (String name : List.of("p1", "p2")) {
                start(processes, name, "producer", "--server", address, "--name", name, "--workers", "2")
                        .awaitLine("attached to", WAIT);
            }
            Await.until("two servers in the network", WAIT, () -> status(address).servers().length == 2);

            try (Consumer consumer = Consumer.connect(address)) {
                Computation<Long> running = consumer.submit(new Fib(20, Load.ofMillis(Load.Kind.SLEEP, 0, 5, 0)));
                String id = Long.toHexString(running.id());
                String page = Await.value("the page showing the running computation", WAIT, () -> dump(dashboard),
                        dom -> rows(dom, "computation").contains(id));
                Message.NetworkStatus truth = status(address);
                assertEquals(names(truth), rows(page, "server"), "the servers the network names");
                assertEquals(new TreeSet<>(Set.of("p1", "p2")), rows(page, "producer"));
                for (Message.ServerStatus s : truth.servers()) {
                    assertTrue(page.contains(">" + s.address() + "<"), s.address() + " shown");
                }
                assertTrue(page.contains("data-servers=\"2\"") && page.contains("tolerates another failure"),
                        "the summary says two servers and the tolerance");
                screenshot(dashboard, Path.of("target", "dashboard.png"));

                second.kill();
                String after = Await.value("the page without the dead server", WAIT, () -> dump(dashboard),
                        dom -> rows(dom, "server").equals(Set.of("d0")));
                assertTrue(after.contains("data-servers=\"1\""), "the summary follows");
                String repairs = Await.value("the page listing the repair", WAIT, () -> dump(dashboard),
                        dom -> dom.contains("class=\"repair\"") && dom.contains("server d1 failed"));
                assertTrue(repairs.contains("d0 takes over its tasks"), "who took over is said");
                assertEquals(Fib.value(20), running.result().get(120, TimeUnit.SECONDS), "the network carried on");
            }
        } finally {
            processes.forEach(ChildProcess::close);
        }
    }

    private static ChildProcess start(List<ChildProcess> processes, String name, String... args) throws IOException {
        ChildProcess p = ChildProcess.start(name, Cx.class.getName(), args);
        processes.add(p);
        return p;
    }

    private static Set<String> names(Message.NetworkStatus status) {
        return Arrays.stream(status.servers()).map(Message.ServerStatus::name)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> rows(String dom, String kind) {
        Set<String> found = new TreeSet<>();
        Matcher m = ROW.matcher(dom);
        while (m.find()) {
            if (m.group(1).equals(kind)) {
                found.add(m.group(2));
            }
        }
        return found;
    }

    private static Message.NetworkStatus status(String address) {
        try {
            return NetworkProbe.status(address);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The page's DOM after its script has read the network (Chromium's virtual time runs its timers). */
    private static String dump(String url) {
        try {
            return chromium("--virtual-time-budget=2500", "--dump-dom", url);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void screenshot(String url, Path file) throws IOException, InterruptedException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        chromium("--virtual-time-budget=2500", "--window-size=1400,800", "--hide-scrollbars",
                "--screenshot=" + file.toAbsolutePath(), url);
        assertTrue(Files.size(file) > 0, "a screenshot in " + file);
        System.out.println("dashboard screenshot: " + file.toAbsolutePath());
    }

    private static String chromium(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--user-data-dir=" + Files.createTempDirectory("cx-chromium")));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "chromium did not finish");
        return out;
    }
}
