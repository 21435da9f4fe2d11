package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import org.junit.jupiter.api.Test;

class OpinionsTest {
    private static final byte[] A = {1};
    private static final byte[] B = {2};
    private static final byte[] C = {3};

    @Test
    void threeOwnersWhoAllDisagreeAtQuorumTwoCannotValidateTheTask() {
        Opinions o = new Opinions(2);
        assertInstanceOf(Opinions.Verdict.Waiting.class, o.add("alice", "a", A));
        assertInstanceOf(Opinions.Verdict.SameOwner.class, o.add("alice", "a2", B), "one owner counts once");
        assertInstanceOf(Opinions.Verdict.Waiting.class, o.add("bob", "b", B));
        Opinions.Verdict.Undecidable u = assertInstanceOf(Opinions.Verdict.Undecidable.class, o.add("carol", "c", C));
        assertEquals(3, u.results());
    }

    @Test
    void theAgreeingQuorumNamesTheResultsItContradicts() {
        Opinions o = new Opinions(2);
        o.add("mallory", "m", B);
        o.add("alice", "a", A);
        Opinions.Verdict.Agreed agreed = assertInstanceOf(Opinions.Verdict.Agreed.class, o.add("bob", "b", A));
        assertEquals(1, agreed.contradicted().size());
        assertEquals("mallory", agreed.contradicted().get(0).owner());
    }
}
