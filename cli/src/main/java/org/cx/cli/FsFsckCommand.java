package org.cx.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.cx.fs.Entry;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.FsPath;
import org.cx.fs.Layout;
import org.cx.fs.Sizes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "fsck", mixinStandardHelpOptions = true,
        description = {"Checks every file under PATH: each replica of each column is on a file server that is",
            "up, and every block matches its checksum. With --repair, makes missing or damaged replicas again",
            "from a good one, on another file server. Exit status 0 when all is well (or was repaired), 1 when",
            "something is not."})
final class FsFsckCommand extends FsCommand.Client {
    @Option(names = "--repair", description = "Re-replicates what is missing or damaged.")
    boolean repair;

    @Parameters(paramLabel = "PATH", defaultValue = "/")
    String path;

    @Override
    int run(FsClient fs) throws IOException {
        int bad = 0;
        int files = 0;
        long bytes = 0;
        for (FsClient.FileInfo f : fs.files(FsCommand.namespacePath(path))) {
            files++;
            bytes += f.entry().size();
            for (int c = 0; c < f.entry().columns().size(); c++) {
                if (!checkColumn(fs, f, c)) {
                    bad++;
                }
            }
        }
        out().println(files + " files, " + Sizes.human(bytes) + " checked: " + (bad == 0 ? "all well"
                : bad + " columns with problems" + (repair ? " left" : " (--repair re-replicates)")));
        return bad == 0 ? 0 : 1;
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
