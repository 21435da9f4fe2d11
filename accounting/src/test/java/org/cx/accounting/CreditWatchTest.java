package org.cx.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CreditWatchTest {
    @Test
    void usersWhoseCreditsExceedTheirChargesAreInCredit() throws Exception {
        String json = Report.balances(List.of(new Report.Balance("alice", 2, 5), new Report.Balance("bob", 3, 1),
                new Report.Balance("carol", 1, 1)), Report.Format.JSON);
        assertEquals(Set.of("alice"), CreditWatch.inCredit(AccountingService.MAPPER.readTree(json)));
    }
}
