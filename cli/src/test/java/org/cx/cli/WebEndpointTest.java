package org.cx.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import javax.management.ObjectName;
import org.cx.wire.Jmx;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Prometheus endpoint shows each CX MBean's figures while it is registered, and the JVM's. */
class WebEndpointTest {

    /** A stand-in for a server's MBean: any MXBean in the org.cx domain is exported the same way. */
    public interface SampleMXBean {
        long getTasksCompleted();

        boolean isTolerant();

        String getName();
    }

    @Test
    void eachCxMBeanAttributeIsAGaugeTaggedByItsNameUntilTheMBeanGoes() throws Exception {
        SampleMXBean sample = new SampleMXBean() {
            @Override
            public long getTasksCompleted() {
                return 4181;
            }

            @Override
            public boolean isTolerant() {
                return true;
            }

            @Override
            public String getName() {
                return "s0";
            }
        };
        ObjectName name = Jmx.register("org.cx:type=SampleServer,name=" + ObjectName.quote("s 0"), sample);
        try (WebEndpoint metrics = WebEndpoint.start("127.0.0.1", 0)) {
            String text = get(metrics.url("127.0.0.1"));
            assertTrue(text.contains("cx_sample_server_tasks_completed{name=\"s 0\"} 4181.0"), text);
            assertTrue(text.contains("cx_sample_server_tolerant{name=\"s 0\"} 1.0"), text);
            assertFalse(text.contains("cx_sample_server_name"), "text attributes are not metrics");
            assertTrue(text.contains("jvm_memory_used_bytes"), "the JVM's figures too");

            Jmx.unregister(name);
            assertFalse(get(metrics.url("127.0.0.1")).contains("cx_sample_server"), "gone with its MBean");
        } finally {
            Jmx.unregister(name);
        }
        assertEquals("tasks.completed.per.second", WebEndpoint.words("TasksCompletedPerSecond"));
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }
}
