package org.cx.accounting;

import java.nio.file.Files;
import java.nio.file.Path;

/** The store's contract on the embedded database (H2, in a file). */
class EmbeddedStoreTest extends StoreContract {
    private Path dir;

    @Override
    AccountingStore fresh(AccountingStore.Policy policy) throws Exception {
        dir = Files.createTempDirectory("cx-accounting-");
        return reopen(policy);
    }

    @Override
    AccountingStore reopen(AccountingStore.Policy policy) throws Exception {
        return AccountingStore.open(AccountingStore.embedded(dir), "", "", policy);
    }
}
