package org.cx.fs.fuse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.cryptomator.jfuse.api.Fuse;
import org.cryptomator.jfuse.api.FuseBuilder;
import org.cryptomator.jfuse.api.FuseMountFailedException;
import org.cx.fs.Blocks;
import org.cx.fs.FsClient;
import org.cx.fs.FsMounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Mounts the federation with libfuse3 through jfuse. */
public final class FuseMounter implements FsMounter {
    private static final Logger LOG = LoggerFactory.getLogger(FuseMounter.class);
    /** Where distributions put libfuse3 (Debian's package has no unversioned libfuse3.so without its -dev). */
    private static final List<String> LIBRARIES = List.of("/usr/lib/x86_64-linux-gnu/libfuse3.so.3",
            "/usr/lib/aarch64-linux-gnu/libfuse3.so.3", "/usr/lib64/libfuse3.so.3", "/usr/lib/libfuse3.so.3",
            "/lib/x86_64-linux-gnu/libfuse3.so.3");
    /** This process's view of the mounts (Linux). */
    private static final Path MOUNTS = Path.of("/proc/self/mountinfo");

    @Override
    public Mount mount(FsClient client, Path dir, Path scratch) throws IOException {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            throw new IOException("this machine has no /dev/fuse: FUSE mounts are not possible here (use cx fs get "
                    + "and put, or the Java library)");
        }
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + " is not a directory: make an empty one to mount on");
        }
        if (!Files.isDirectory(scratch) || !Files.isWritable(scratch)) {
            throw new IOException(scratch + " is not a writable directory: files being written are kept there");
        }
        Path where = dir.toRealPath();
        FuseBuilder builder = Fuse.builder();
        LIBRARIES.stream().filter(l -> Files.exists(Path.of(l))).findFirst().ifPresent(builder::setLibraryPath);
        Fuse fuse;
        try {
            fuse = builder.build(new CxFuse(client, builder.errno(), scratch));
        } catch (UnsatisfiedLinkError e) {
            throw new IOException("libfuse3 is not installed (Debian: apt install fuse3): " + e.getMessage(), e);
        }
        try {
            fuse.mount("cx", dir, "-oauto_unmount", "-odefault_permissions");
        } catch (FuseMountFailedException | IllegalArgumentException e) {
            closeQuietly(fuse);
            throw new IOException("cannot mount on " + dir + ": " + e.getMessage(), e);
        }
        readAhead(where);
        return new Mount() {
            @Override
            public boolean isMounted() {
                return MountTable.fuseAt(MOUNTS, where);
            }

            @Override
            public void close() throws IOException {
                try {
                    fuse.close();
                } catch (TimeoutException e) {
                    throw new IOException("unmounting " + dir + " timed out: " + e.getMessage(), e);
                }
            }
        };
    }

    /**
     * Raises the kernel's read-ahead for the mount to a block ({@code /sys/class/bdi/MAJOR:MINOR/read_ahead_kb}),
     * where this process may (root): its default, 128 KiB, makes a sequential read eight requests a block. Elsewhere
     * the mount keeps the default.
     */
    private static void readAhead(Path where) {
        try {
            Optional<Path> knob = MountTable.fuseDevice(Files.readAllLines(MOUNTS), where)
                    .map(device -> Path.of("/sys/class/bdi", device, "read_ahead_kb")).filter(Files::isWritable);
            if (knob.isPresent()) {
                Files.writeString(knob.get(), Integer.toString(Blocks.SIZE / 1024));
            }
        } catch (IOException e) {
            LOG.debug("read-ahead left as it was: {}", e.getMessage());
        }
    }

    private static void closeQuietly(Fuse fuse) {
        try {
            fuse.close();
        } catch (Exception ignored) {
            // it failed to mount anyway
        }
    }
}
