package org.cx.fs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.fs.FsException.Code;

/**
 * A client's connections to the service's processes: pooled by address (one request at a time on each), opened by
 * a {@link Dialer} (directly, or through a producer's {@link FsRelay}), and which of the name services given answers
 * as primary now (the one with the highest epoch seen).
 */
final class FsConnections implements AutoCloseable {
    /** How a client reaches a process of the service and says who it is. */
    @FunctionalInterface
    interface Dialer {
        FsConnection open(String address, long epoch) throws FsException;
    }

    /** The name services given (a primary and its standby, in any order). */
    private final List<String> nameServices;
    /** The one answering as primary, with the highest epoch seen. */
    private volatile String names;
    private volatile long epochSeen;
    private final Dialer dialer;
    private final Map<String, Deque<FsConnection>> idle = new HashMap<>();
    private boolean closed;

    /** @param names the name services' addresses, comma-separated */
    FsConnections(String names, Dialer dialer) {
        this.nameServices = java.util.Arrays.stream(names.split(",")).map(String::trim).filter(a -> !a.isEmpty())
                .toList();
        this.names = nameServices.get(0);
        this.dialer = dialer;
    }

    /**
     * One request to the primary name service. When it cannot be reached or is no longer primary, the request goes
     * once more to whichever of the name services given answers as primary (a change whose answer was lost may then
     * be made twice: a repeated mkdir says the directory exists).
     */
    ObjectNode names(ObjectNode request) throws FsException {
        try {
            return namesOnce(take(names), request);
        } catch (FsException e) {
            if (e.code() != Code.EIO || nameServices.size() == 1) {
                throw e;
            }
            return namesOnce(primary(), request);
        }
    }

    private ObjectNode namesOnce(FsConnection c, ObjectNode request) throws FsException {
        try {
            ObjectNode reply = c.call(request);
            release(c);
            return reply;
        } catch (FsException e) {
            if (e.code() == Code.EIO) {
                c.close();
            } else {
                release(c);
            }
            throw e;
        }
    }

    /** A connection to the name service that answers as primary with the highest epoch, which becomes the current. */
    FsConnection primary() throws FsException {
        FsConnection best = null;
        List<String> problems = new ArrayList<>();
        for (String address : nameServices) {
            try {
                FsConnection c = dialer.open(address, epochSeen);
                long epoch = c.hello().path("epoch").asLong();
                epochSeen = Math.max(epochSeen, epoch);
                if (!c.hello().path("role").asText("primary").equals("primary")) {
                    problems.add(address + " is " + c.hello().path("role").asText());
                    c.close();
                } else if (best == null || epoch > best.hello().path("epoch").asLong()) {
                    if (best != null) {
                        best.close();
                    }
                    best = c;
                } else {
                    c.close();
                }
            } catch (FsException e) {
                if (nameServices.size() == 1) {
                    throw e;
                }
                problems.add(e.getMessage());
            }
        }
        if (best == null) {
            throw new FsException(Code.EIO, "no primary name service among " + String.join(", ", nameServices) + ": "
                    + String.join("; ", problems));
        }
        names = best.address();
        return best;
    }

    /** One request to the process at {@code address} (a file server), on a pooled connection. */
    ObjectNode onServer(String address, ObjectNode request) throws FsException {
        FsConnection c = take(address);
        try {
            ObjectNode reply = c.call(request);
            release(c);
            return reply;
        } catch (FsException e) {
            c.close();
            throw e;
        }
    }

    FsConnection take(String address) throws FsException {
        synchronized (idle) {
            if (closed) {
                throw new FsException(Code.EIO, "the file service client is closed");
            }
            Deque<FsConnection> d = idle.get(address);
            if (d != null && !d.isEmpty()) {
                return d.pop();
            }
        }
        return dialer.open(address, epochSeen);
    }

    void release(FsConnection c) {
        synchronized (idle) {
            if (!closed) {
                idle.computeIfAbsent(c.address(), a -> new ArrayDeque<>()).push(c);
                return;
            }
        }
        c.close();
    }

    @Override
    public void close() {
        synchronized (idle) {
            closed = true;
            idle.values().forEach(d -> d.forEach(FsConnection::close));
            idle.clear();
        }
    }
}
