package org.cx.system;

import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.examples.ep.Ep;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The NAS EP kernel as a CX computation gives NPB's reference answers (classes S and W). */
class EpTest {

    @ParameterizedTest
    @CsvSource({"24, 13176389", "25, 26354769"})
    void matchesTheNpbReference(int m, long gaussianPairs) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("ep"), 2, 4, 1, true);
             Consumer consumer = cluster.consumer()) {
            Ep.Result r = consumer.<Ep.Result>submit(new Ep(m, 4)).result().get(120, TimeUnit.SECONDS);
            System.out.printf("EP M=%d: sx=%.15e sy=%.15e pairs=%d%n", m, r.sx(), r.sy(), r.gaussianPairs());
            assertTrue(Ep.verify(m, r), "sums " + r.sx() + ", " + r.sy() + " against "
                    + java.util.Arrays.toString(Ep.reference(m)));
            assertEquals(gaussianPairs, r.gaussianPairs());
            assertEquals(10, r.counts().length);
            assertArrayEquals(Ep.reference(m), new double[] {r.sx(), r.sy()}, Math.abs(Ep.reference(m)[1]) * 1e-8);
        }
    }
}
