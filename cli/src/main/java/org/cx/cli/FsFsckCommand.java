package org.cx.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cx.fs.Entry;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.FsPath;
import org.cx.fs.Layout;
import org.cx.fs.OnlyOn;
import org.cx.fs.Sizes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "fsck", mixinStandardHelpOptions = true,
        description = {"Checks every file under PATH: each replica of each column is on a file server that is",
            "up, and every block matches its checksum. With --repair, makes missing or damaged replicas again",
            "from a good one, on another file server. Checking the whole namespace (PATH /) with an admin",
            "credential also finds orphans: blobs on a file server that no file names (a transfer cut short, a",
            "delete while the server was down); --repair deletes those older than --orphan-age. Exit status 0",
            "when all is well (or was repaired), 1 when something is not."})
final class FsFsckCommand extends FsCommand.Client {
    @Option(names = "--repair", description = "Re-replicates what is missing or damaged; deletes old orphans.")
    boolean repair;

    @Option(names = "--orphan-age", defaultValue = "1h", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "An unnamed blob younger than this may be a write under way: it is reported, never deleted, "
                    + "and not counted as a problem. Default: ${DEFAULT-VALUE}.")
    Duration orphanAge;

    @Parameters(paramLabel = "PATH", defaultValue = "/")
    String path;

    @Override
    int run(FsClient fs) throws IOException {
        int bad = 0;
        int files = 0;
        long bytes = 0;
        Map<String, Set<String>> named = new HashMap<>();
        String root = FsCommand.namespacePath(path);
        for (FsClient.FileInfo f : fs.files(root)) {
            files++;
            bytes += f.entry().size();
            for (int c = 0; c < f.entry().columns().size(); c++) {
                Entry.Column column = f.entry().columns().get(c);
                column.servers().forEach(id -> named.computeIfAbsent(id, k -> new HashSet<>()).add(column.blob()));
                if (!checkColumn(fs, f, c)) {
                    bad++;
                }
            }
        }
        String problems = bad + " columns with problems" + (repair ? " left" : " (--repair re-replicates)");
        out().println(files + (files == 1 ? " file, " : " files, ") + Sizes.human(bytes) + " checked: "
                + (bad == 0 ? "all well" : problems));
        if (FsPath.of(root).isRoot()) {
            bad += orphans(fs, named);
        }
        return bad == 0 ? 0 : 1;
    }

    /**
     * Reports (and with --repair deletes) blobs no file names on each file server that is up; returns how many old
     * ones are left. Blobs younger than --orphan-age are reported only: a write may be under way.
     */
    private int orphans(FsClient fs, Map<String, Set<String>> named) throws FsException {
        int left = 0;
        for (FsClient.ServerInfo s : fs.servers()) {
            if (!s.alive()) {
                continue;
            }
            List<FsClient.BlobInfo> blobs;
            try {
                blobs = fs.blobs(s.address());
            } catch (FsException e) {
                if (e.code() != FsException.Code.EACCES) {
                    throw e;
                }
                out().println("orphans not checked: listing a file server's blobs takes an admin credential "
                        + "(--credentials DIR)");
                return 0;
            }
            Set<String> mine = named.getOrDefault(s.id(), Set.of());
            List<FsClient.BlobInfo> orphans = blobs.stream().filter(b -> !mine.contains(b.blob())).toList();
            List<FsClient.BlobInfo> old = orphans.stream().filter(b -> b.ageSeconds() >= orphanAge.toSeconds())
                    .toList();
            if (orphans.isEmpty()) {
                continue;
            }
            out().println("file server " + s.id() + ": " + orphans.size() + " orphan blobs ("
                    + Sizes.human(orphans.stream().mapToLong(FsClient.BlobInfo::size).sum()) + "), " + old.size()
                    + " older than " + orphanAge.toString().substring(2).toLowerCase(java.util.Locale.ROOT));
            if (repair) {
                for (FsClient.BlobInfo b : old) {
                    fs.deleteBlob(s.address(), b.blob());
                }
                out().println("file server " + s.id() + ": deleted " + old.size() + " orphan blobs");
            } else {
                left += old.size();
            }
        }
        return left;
    }

    /** Whether column {@code c} of {@code f} is whole on every replica (after repair, if asked). */
    private boolean checkColumn(FsClient fs, FsClient.FileInfo f, int c) {
        Entry e = f.entry();
        Entry.Column column = e.columns().get(c);
        Layout layout = e.layout();
        List<Integer> blocks = layout.blocksOf(c);
        long size = blocks.stream().mapToLong(layout::blockLength).sum();
        List<Integer> crcs = blocks.stream().map(e.crcs()::get).toList();
        List<String> good = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (String id : column.servers()) {
            String address = f.addresses().get(id);
            String problem = null;
            if (address == null) {
                problem = "file server " + id + " is not registered";
            } else {
                try {
                    var found = fs.check(address, column.blob());
                    List<Integer> actual = new ArrayList<>();
                    found.path("crcs").forEach(x -> actual.add(x.asInt()));
                    if (found.path("size").asLong() != size) {
                        problem = "file server " + id + " holds " + found.path("size").asLong() + " bytes, not "
                                + size;
                    } else if (!actual.equals(crcs)) {
                        problem = "blocks on file server " + id + " do not match their checksums";
                    }
                } catch (FsException x) {
                    problem = x.getMessage();
                }
            }
            if (problem == null) {
                good.add(id);
            } else {
                problems.add(problem);
            }
        }
        String where = FsPath.SCHEME + f.path() + (e.columns().size() > 1 ? " (column " + c + ")" : "");
        if (problems.isEmpty()) {
            return true;
        }
        out().println(where + ": " + String.join("; ", problems));
        if (!repair) {
            return false;
        }
        if (good.isEmpty() || e.linked()) {
            out().println(where + ": cannot repair: " + (e.linked() ? "a linked file has one copy"
                    : "no replica is whole"));
            return false;
        }
        return repairColumn(fs, f, c, good, size, crcs, where);
    }

    private boolean repairColumn(FsClient fs, FsClient.FileInfo f, int c, List<String> good, long size,
                                 List<Integer> crcs, String where) {
        Entry.Column column = f.entry().columns().get(c);
        List<String> servers = new ArrayList<>(good);
        try {
            List<FsClient.ServerInfo> spare = fs.servers().stream().filter(FsClient.ServerInfo::alive)
                    .filter(s -> !column.servers().contains(s.id()))
                    .filter(s -> OnlyOn.matches(f.entry().only(), s.id(), s.host()))
                    .sorted(java.util.Comparator.comparingLong(FsClient.ServerInfo::free).reversed()).toList();
            String from = f.addresses().get(good.get(0));
            for (FsClient.ServerInfo s : spare) {
                if (servers.size() == column.servers().size()) {
                    break;
                }
                fs.copyBlob(column.blob(), size, crcs, from, s.address());
                servers.add(s.id());
            }
            if (servers.size() < column.servers().size()) {
                out().println(where + ": only " + servers.size() + " of " + column.servers().size()
                        + " replicas could be made: start more file servers");
                fs.relocate(f.path(), c, new Entry.Column(column.blob(), servers));
                return false;
            }
            fs.relocate(f.path(), c, new Entry.Column(column.blob(), servers));
            out().println(where + ": repaired, now on " + String.join(", ", servers));
            return true;
        } catch (FsException x) {
            out().println(where + ": repair failed: " + x.getMessage());
            return false;
        }
    }
}
