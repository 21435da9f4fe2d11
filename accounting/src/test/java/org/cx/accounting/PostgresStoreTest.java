package org.cx.accounting;

import org.cx.testing.Postgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/** The store's contract on PostgreSQL: a real server of the machine's installation, a new database per test. */
class PostgresStoreTest extends StoreContract {
    private static Postgres postgres;
    private static int databases;
    private String url;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(Postgres.installation().isPresent(), "PostgreSQL is not installed here "
                + "(.ci/run installs Debian's postgresql)");
        postgres = Postgres.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    AccountingStore fresh(AccountingStore.Policy policy) throws Exception {
        url = postgres.createDatabase("accounting" + ++databases);
        return reopen(policy);
    }

    @Override
    AccountingStore reopen(AccountingStore.Policy policy) throws Exception {
        return AccountingStore.open(url, Postgres.USER, "", policy);
    }
}
