package org.cx.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the accounting service for every user's balance now and then, and tells a task server which users are in
 * credit, so that it can favour their computations (fair share from balance, as Slurm's from past usage). When the
 * service cannot be reached, the last answer stands.
 */
public final class CreditWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CreditWatch.class);

    private final Supplier<String> address;
    private final Tls tls;
    private final String caller;
    private final Consumer<Set<String>> apply;
    private final Thread thread;
    private volatile boolean closed;
    private boolean failing;

    /**
     * @param address where the accounting service is (asked again every time)
     * @param caller  the name to say with plain connections
     * @param every   how often to ask
     * @param apply   what to do with the users in credit (called on this watch's thread)
     */
    public CreditWatch(Supplier<String> address, Tls tls, String caller, Duration every,
                       Consumer<Set<String>> apply) {
        this.address = address;
        this.tls = tls;
        this.caller = caller;
        this.apply = apply;
        this.thread = new Thread(() -> {
            while (!closed) {
                check();
                try {
                    Thread.sleep(every.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "cx-credit-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void check() {
        try (AccountingClient client = AccountingClient.connect(address.get(), tls, caller)) {
            apply.accept(inCredit(AccountingService.MAPPER.readTree(client.balance(null, Report.Format.JSON))));
            failing = false;
        } catch (IOException | RuntimeException e) {
            if (!failing) {
                LOG.warn("cannot read balances from the accounting service ({}); the users favoured stay as they "
                        + "were", e.getMessage());
                failing = true;
            }
        }
    }

    /** The users of a balances list (as the service writes it in JSON) whose credits exceed their charges. */
    static Set<String> inCredit(JsonNode balances) {
        Set<String> users = new HashSet<>();
        for (JsonNode b : balances) {
            if (b.path("credited").asDouble() > b.path("charged").asDouble()) {
                users.add(b.path("user").asText());
            }
        }
        return users;
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
