package org.cx.producer;

import java.io.IOException;
import java.util.List;

/**
 * Where a producer that has no server looks for one: a fixed address, or what a lookup service names now. Asked
 * again before each try, so a lookup service that appears later, or names another server, is heard.
 */
@FunctionalInterface
public interface ServerFinder {
    /** Addresses (host:port) to try, best first; empty if none is known now. */
    List<String> candidates() throws IOException;

    /** Always the server at {@code address}. */
    static ServerFinder at(String address) {
        return () -> List.of(address);
    }
}
