package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProducerDemandTest {

    /** Two producers of 2 and 3 workers; each row sets a's and then b's credit and idle workers. */
    @ParameterizedTest(name = "a {0}/{1}, b {2}/{3}")
    @CsvSource({
        // credit a, idle a, credit b, idle b, hungry, hungry and idle, idle waiting, credit
        "0, 0, 0, 0, '', '', 0, 0",
        "4, 0, 0, 0, 'a', '', 0, 4",
        "4, 2, 0, 0, 'a', 'a', 2, 4",
        "1, 2, 0, 0, 'a', 'a', 1, 1",     // an idle worker without credit is not waiting for this server
        "0, 2, 3, 1, 'b', 'b', 1, 3",
        "2, 2, 3, 3, 'a b', 'a b', 5, 5",
    })
    void setsAndTotalsFollowEveryChange(int creditA, int idleA, int creditB, int idleB, String hungry,
                                        String hungryIdle, int idleWaiting, int credit) {
        ProducerDemand demand = new ProducerDemand();
        ProducerState a = new ProducerState(1, "a", 2);
        ProducerState b = new ProducerState(2, "b", 3);
        demand.joined(a);
        demand.joined(b);
        demand.set(a, 9, 9); // whatever came before is replaced, not added to
        demand.set(a, creditA, idleA);
        demand.set(b, creditB, idleB);
        assertEquals(names(hungry), demand.hungry.stream().map(ProducerState::name).toList());
        assertEquals(names(hungryIdle), demand.hungryIdle.stream().map(ProducerState::name).toList());
        assertEquals(idleWaiting, demand.idleWaiting());
        assertEquals(credit, demand.credit());
        assertEquals(5, demand.workers());
        demand.left(a);
        demand.left(b);
        assertEquals(0, demand.idleWaiting());
        assertEquals(0, demand.credit());
        assertEquals(0, demand.workers());
        assertEquals(List.of(), List.copyOf(demand.hungry));
    }

    private static List<String> names(String spaced) {
        return spaced.isBlank() ? List.of() : List.of(spaced.split(" "));
    }
}
