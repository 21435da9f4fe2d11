package org.cx.fs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.cx.fs.FsException.Code;

/**
 * The file servers as a name service knows them: what each said when it last registered (in memory only: a
 * restarted name service hears from them again within {@link NameService#RENEW}), which are up, where a new file's
 * columns go, and whether an entry a client proposes names only servers it knows.
 */
final class ServerTable {
    /** A file server as it registered. */
    record Server(String id, String address, String host, long capacity, long free, long seenNanos) {
        boolean alive(long now) {
            return now - seenNanos < NameService.SERVER_TIMEOUT.toNanos();
        }
    }

    private final Map<String, Server> servers = new ConcurrentHashMap<>();

    /** Records {@code s}'s registration; whether it is new (not heard from since this name service started). */
    boolean register(Server s) {
        return servers.put(s.id(), s) == null;
    }

    /** Adds every server to {@code list}, with whether it is up. */
    void list(ArrayNode list) {
        long t = System.nanoTime();
        for (Server s : servers.values()) {
            list.addObject().put("id", s.id()).put("address", s.address()).put("host", s.host())
                    .put("capacity", s.capacity()).put("free", s.free()).put("alive", s.alive(t));
        }
    }

    String address(String serverId) {
        Server s = servers.get(serverId);
        return s == null ? null : s.address();
    }

    /**
     * File servers for a new file of {@code size} bytes in {@code stripes} columns of {@code replicas} copies: the
     * replicas of a column on different servers, the columns spread over as many servers as are up, those with the
     * most free space first; only those that match {@code only} ({@link OnlyOn}).
     */
    List<List<Server>> placement(int stripes, int replicas, long size, String only) throws FsException {
        OnlyOn.check(only);
        if (stripes < 1 || replicas < 1 || stripes > 64 || replicas > 8) {
            throw new FsException(Code.EINVAL, "stripes are 1 to 64 and replicas 1 to 8, not " + stripes + " and "
                    + replicas);
        }
        long now = System.nanoTime();
        List<Server> up = new ArrayList<>(servers.values().stream().filter(s -> s.alive(now)).toList());
        if (up.isEmpty()) {
            throw new FsException(Code.EIO, "no file server is up: start one with 'cx fs serve --root DIR "
                    + "--names HOST:PORT'");
        }
        up.removeIf(s -> !OnlyOn.matches(only, s.id(), s.host()));
        if (up.isEmpty()) {
            throw new FsException(Code.ENOSPC, "no file server up matches " + only + " (cx fs df lists them)");
        }
        if (up.size() < replicas) {
            throw new FsException(Code.EINVAL, replicas + " replicas need " + replicas + " file servers up; "
                    + up.size() + " are");
        }
        up.sort(Comparator.comparingLong(Server::free).reversed());
        long share = size / ((long) stripes) + 1;
        List<List<Server>> columns = new ArrayList<>();
        int next = 0;
        for (int c = 0; c < stripes; c++) {
            List<Server> column = new ArrayList<>();
            for (int r = 0; r < replicas; r++) {
                Server s = up.get(next++ % up.size());
                if (s.free() < share) {
                    throw new FsException(Code.ENOSPC, "file server " + s.id() + " has " + s.free() + " bytes free,"
                            + " not the " + share + " its part of the file needs");
                }
                column.add(s);
            }
            columns.add(column);
        }
        return columns;
    }

    /** A file entry as a client proposes it: every server known, the blocks and checksums consistent. */
    void check(Entry file) throws FsException {
        OnlyOn.check(file.only());
        if (file.columns().isEmpty()) {
            throw new FsException(Code.EINVAL, "a file needs at least one column");
        }
        try {
            file.layout();
        } catch (IllegalArgumentException e) {
            throw new FsException(Code.EINVAL, e.getMessage());
        }
        for (Entry.Column c : file.columns()) {
            if (c.servers().isEmpty()) {
                throw new FsException(Code.EINVAL, "column " + c.blob() + " is on no file server");
            }
            for (String id : c.servers()) {
                Server s = servers.get(id);
                if (s == null) {
                    throw new FsException(Code.EINVAL, "no file server " + id + " is registered");
                }
                if (!OnlyOn.matches(file.only(), s.id(), s.host())) {
                    throw new FsException(Code.EINVAL, "file server " + id + " on " + s.host() + " does not match "
                            + "the file's placement restriction " + file.only());
                }
            }
        }
        if (Blocks.count(file.size()) != file.crcs().size()) {
            throw new FsException(Code.EINVAL, "a file of " + file.size() + " bytes has " + Blocks.count(file.size())
                    + " blocks, not " + file.crcs().size());
        }
    }

    /** The address of each file server {@code e} is on (null for one not registered now). */
    ObjectNode addresses(Entry e) {
        ObjectNode out = Json.object();
        for (Entry.Column c : e.columns()) {
            for (String id : c.servers()) {
                out.put(id, address(id));
            }
        }
        return out;
    }
}
