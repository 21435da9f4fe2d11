package org.cx.fs;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Mounts the federation as a directory of this machine, for unmodified programs. Implemented by the {@code fs-fuse}
 * module (found with {@link java.util.ServiceLoader}), which is there when cx was built with Java 22 or newer.
 */
public interface FsMounter {
    /**
     * Mounts what {@code client} sees at {@code dir}, an empty directory; closing the result unmounts. Files being
     * written are kept in {@code scratch} until closed.
     *
     * @throws IOException saying why it could not be mounted
     */
    Mount mount(FsClient client, Path dir, Path scratch) throws IOException;

    /** A mounted directory. */
    interface Mount extends AutoCloseable {
        /**
         * Whether the directory is still mounted: false once it was unmounted from outside ({@code umount DIR},
         * {@code fusermount3 -u DIR}). True where the system cannot tell.
         */
        boolean isMounted();

        /** Unmounts, if it is still mounted, and lets go of the mount's threads. */
        @Override
        void close() throws IOException;
    }
}
