package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeirChoiceTest {

    /**
     * Seven servers on branching 2: positions 0..6 hold ids 1..7. Server 6 (position 5) has the mirror group {5}
     * (its sibling at position 4). {@code copies} lists holder:lastSeq of complete copies of server 6.
     */
    @ParameterizedTest(name = "copies {0} -> heir {1}")
    @CsvSource(delimiter = ';', value = {
        "5:10; 5",
        "5:10 1:12; 5",
        "1:12 2:12; 1",
        "2:12 1:12; 1",
        "2:12 1:11; 2",
        "; -1",
        "6:99; -1",
    })
    void heirIsTheGroupMemberWithACopyElseTheFormerMemberWithTheNewestCopy(String copies, int expected) {
        FatTree tree = sevenServers();
        assertEquals(List.of(5), tree.mirrorGroup(6), "the layout this table assumes");
        assertEquals(expected, HeirChoice.heir(tree, 6, held(copies)));
    }

    /**
     * Server 6 fails together with its whole mirror group {5}. If 5 held a complete copy, 6 may have released its
     * former members and gone on committing without them: no other copy is safe. If 5 had none yet, a former member
     * was still kept up to date, and its copy is taken.
     */
    @ParameterizedTest(name = "copies {0}, 5 failing too -> heir {1}")
    @CsvSource(delimiter = ';', value = {
        "5:10 1:9; -1",
        "5:10 1:10; -1",
        "1:9; 1",
        "5:10; -1",
    })
    void aFormerMembersCopyIsNotTakenOnceTheFailingGroupHadOne(String copies, int expected) {
        assertEquals(expected, HeirChoice.heir(sevenServers(), 6, held(copies), Set.of(5)));
    }

    private static FatTree sevenServers() {
        FatTree tree = new FatTree(2);
        for (int id = 1; id <= 7; id++) {
            tree.join(id);
        }
        return tree;
    }

    /** The copies of server 6 listed as holder:lastSeq. */
    private static HeirChoice.Copies held(String copies) {
        Map<Integer, Long> held = new HashMap<>();
        if (copies != null) {
            for (String c : copies.trim().split(" ")) {
                String[] kv = c.split(":");
                held.put(Integer.parseInt(kv[0]), Long.parseLong(kv[1]));
            }
        }
        return (holder, failed) -> held.getOrDefault(holder, -1L);
    }
}
