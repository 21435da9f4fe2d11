package org.cx.fs.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cx.fs.Entry;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.Namespace;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;

/**
 * The {@code cx} scheme: {@code cx://HOST:PORT/path} names a file of the federation whose name service is at
 * HOST:PORT. A file system is made by {@link java.nio.file.FileSystems#newFileSystem(URI, Map)} with the environment
 * {@code tls} (a {@link Tls}: whose credential to use) or {@code user} (a name, for plain connections), or on first
 * use of such a URI with this user's local credential ({@code -Dcx.fs.insecure=true}: plainly, as the login name).
 *
 * <p>Semantics: close-to-open consistency (a file read is the file as it was when opened; a file written appears,
 * whole, when its channel or stream is closed, and not at all if writing failed). Files are written from start to
 * end (no random writes, no append). There are no symbolic links, no hard links and no groups.
 */
public final class CxFileSystemProvider extends FileSystemProvider {
    private final Map<String, CxFileSystem> systems = new HashMap<>();

    @Override
    public String getScheme() {
        return "cx";
    }

    private static String names(URI uri) {
        if (!"cx".equalsIgnoreCase(uri.getScheme()) || uri.getAuthority() == null) {
            throw new IllegalArgumentException(uri + " is not a federation URI: write cx://HOST:PORT/path, with the "
                    + "name service's address");
        }
        return uri.getAuthority();
    }

    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) throws IOException {
        String names = names(uri);
        synchronized (systems) {
            if (systems.containsKey(names)) {
                throw new FileSystemAlreadyExistsException("cx://" + names);
            }
            Tls tls = (Tls) env.get("tls");
            String user = (String) env.get("user");
            if (tls == null && user == null) {
                return fileSystem(names);
            }
            CxFileSystem fs = new CxFileSystem(this, names, FsClient.connect(names, tls, user));
            systems.put(names, fs);
            return fs;
        }
    }

    /** The file system of the name service at {@code names}, made with this user's defaults if there is none. */
    private CxFileSystem fileSystem(String names) throws IOException {
        synchronized (systems) {
            CxFileSystem fs = systems.get(names);
            if (fs == null) {
                boolean insecure = Boolean.getBoolean("cx.fs.insecure");
                Tls tls = insecure ? null : CxHome.local(CredentialRole.USER, false);
                fs = new CxFileSystem(this, names, FsClient.connect(names, tls, System.getProperty("user.name")));
                systems.put(names, fs);
            }
            return fs;
        }
    }

    /**
     * A file system of the federation at {@code names} over {@code client}, for one caller among several in this
     * process (a producer running tasks of several owners): {@code cx://} URIs do not find it.
     */
    public static FileSystem over(String names, FsClient client) {
        for (FileSystemProvider p : FileSystemProvider.installedProviders()) {
            if (p instanceof CxFileSystemProvider cx) {
                return new CxFileSystem(cx, names, client);
            }
        }
        return new CxFileSystem(new CxFileSystemProvider(), names, client);
    }

    void closed(CxFileSystem fs) {
        synchronized (systems) {
            systems.remove(fs.names(), fs);
        }
    }

    @Override
    public FileSystem getFileSystem(URI uri) {
        synchronized (systems) {
            CxFileSystem fs = systems.get(names(uri));
            if (fs == null) {
                throw new FileSystemNotFoundException("cx://" + names(uri));
            }
            return fs;
        }
    }

    @Override
    public Path getPath(URI uri) {
        try {
            return fileSystem(names(uri)).getPath(uri.getPath().isEmpty() ? "/" : uri.getPath());
        } catch (IOException e) {
            throw new FileSystemNotFoundException("cx://" + names(uri) + ": " + e.getMessage());
        }
    }

    private static CxPath cx(Path p) {
        if (!(p instanceof CxPath c)) {
            throw new ProviderMismatchException(p + " is not a path in the federation");
        }
        return c;
    }

    /** The NIO exception that says what {@code e} says about {@code path}. */
    static IOException nio(FsException e, Path path) {
        IOException out = switch (e.code()) {
            case ENOENT -> new NoSuchFileException(path.toString(), null, e.getMessage());
            case EEXIST -> new FileAlreadyExistsException(path.toString(), null, e.getMessage());
            case ENOTEMPTY -> new DirectoryNotEmptyException(path.toString());
            case EACCES -> new AccessDeniedException(path.toString(), null, e.getMessage());
            case ENOTDIR -> new NotDirectoryException(path.toString());
            default -> e;
        };
        if (out != e) {
            out.initCause(e);
        }
        return out;
    }

    private static Entry stat(CxPath p) throws IOException {
        try {
            return p.getFileSystem().client().stat(p.namespacePath());
        } catch (FsException e) {
            throw nio(e, p);
        }
    }

    @Override
    public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options,
                                              FileAttribute<?>... attrs) throws IOException {
        CxPath p = cx(path);
        FsClient client = p.getFileSystem().client();
        boolean write = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
        if (!write) {
            try {
                return new CxReadChannel(client, client.open(p.namespacePath()));
            } catch (FsException e) {
                throw nio(e, p);
            }
        }
        if (options.contains(StandardOpenOption.READ) || options.contains(StandardOpenOption.APPEND)) {
            throw new UnsupportedOperationException("federated files are written whole, from start to end: no "
                    + "READ with WRITE, no APPEND");
        }
        boolean exists = exists(p);
        if (options.contains(StandardOpenOption.CREATE_NEW) && exists) {
            throw new FileAlreadyExistsException(p.toString());
        }
        if (!exists && !options.contains(StandardOpenOption.CREATE)
                && !options.contains(StandardOpenOption.CREATE_NEW)) {
            throw new NoSuchFileException(p.toString());
        }
        return new CxWriteChannel(client, p.namespacePath(), FsClient.Placement.SINGLE);
    }

    /**
     * A channel that writes the file at {@code path} from start to end, sending blocks while the caller goes on
     * (write-behind); the file appears when it is closed, or not at all if it is {@linkplain CxWriteChannel#abandon
     * abandoned}: what {@code cx fs mount} streams a file written in order to.
     */
    public static CxWriteChannel writer(FsClient client, String path) {
        return new CxWriteChannel(client, path, FsClient.Placement.SINGLE);
    }

    /**
     * A channel that reads the file at {@code path} as it is now, with read-ahead: what {@code cx fs mount} serves
     * reads from.
     */
    public static SeekableByteChannel reader(FsClient client, String path) throws FsException {
        return reader(client, client.open(path));
    }

    /** As {@link #reader(FsClient, String)}, for a file opened before. */
    public static SeekableByteChannel reader(FsClient client, FsClient.Opened file) {
        return new CxReadChannel(client, file);
    }

    /**
     * A stream over the file's read channel whose {@link InputStream#transferTo} writes whole blocks as they came,
     * so that {@code Files.copy} out of the federation writes 1 MiB at a time, with no copy between.
     */
    @Override
    public InputStream newInputStream(Path path, OpenOption... options) throws IOException {
        CxReadChannel channel = (CxReadChannel) newByteChannel(path, Set.of());
        return new InputStream() {
            private final InputStream in = Channels.newInputStream(channel);

            @Override
            public int read() throws IOException {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return in.read(b, off, len);
            }

            @Override
            public long transferTo(OutputStream out) throws IOException {
                return channel.transferTo(out);
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    private static boolean exists(CxPath p) throws IOException {
        try {
            p.getFileSystem().client().stat(p.namespacePath());
            return true;
        } catch (FsException e) {
            if (e.code() == FsException.Code.ENOENT) {
                return false;
            }
            throw nio(e, p);
        }
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
            throws IOException {
        CxPath p = cx(dir);
        List<Namespace.Named> entries;
        try {
            if (!p.getFileSystem().client().stat(p.namespacePath()).directory()) {
                throw new NotDirectoryException(p.toString());
            }
            entries = p.getFileSystem().client().list(p.namespacePath());
        } catch (FsException e) {
            throw nio(e, p);
        }
        List<Path> paths = new ArrayList<>();
        for (Namespace.Named n : entries) {
            Path child = p.resolve(n.name());
            if (filter.accept(child)) {
                paths.add(child);
            }
        }
        return new DirectoryStream<>() {
            @Override
            public Iterator<Path> iterator() {
                return paths.iterator();
            }

            @Override
            public void close() {
                // a listing is read whole
            }
        };
    }

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        CxPath p = cx(dir);
        try {
            p.getFileSystem().client().mkdir(p.namespacePath(), false);
        } catch (FsException e) {
            throw nio(e, p);
        }
    }

    @Override
    public void delete(Path path) throws IOException {
        CxPath p = cx(path);
        try {
            p.getFileSystem().client().remove(p.namespacePath(), false);
        } catch (FsException e) {
            throw nio(e, p);
        }
    }

    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        CxPath s = cx(source);
        CxPath t = cx(target);
        boolean replace = List.of(options).contains(StandardCopyOption.REPLACE_EXISTING);
        if (!replace && exists(t)) {
            throw new FileAlreadyExistsException(t.toString());
        }
        if (stat(s).directory()) {
            createDirectory(t);
            return;
        }
        try (InputStream in = newInputStream(s)) {
            t.getFileSystem().client().write(t.namespacePath(), in, stat(s).size(), FsClient.Progress.NONE);
        } catch (FsException e) {
            throw nio(e, t);
        }
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        CxPath s = cx(source);
        CxPath t = cx(target);
        if (!List.of(options).contains(StandardCopyOption.REPLACE_EXISTING) && exists(t)) {
            throw new FileAlreadyExistsException(t.toString());
        }
        try {
            s.getFileSystem().client().rename(s.namespacePath(), t.namespacePath());
        } catch (FsException e) {
            throw nio(e, s);
        }
    }

    @Override
    public boolean isSameFile(Path path, Path path2) {
        return cx(path).toAbsolutePath().normalize().equals(cx(path2).toAbsolutePath().normalize());
    }

    @Override
    public boolean isHidden(Path path) {
        Path name = path.getFileName();
        return name != null && name.toString().startsWith(".");
    }

    @Override
    public FileStore getFileStore(Path path) {
        return new CxFileStore(cx(path).getFileSystem());
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        CxPath p = cx(path);
        Entry e = stat(p);
        String me = p.getFileSystem().client().identity();
        int bits = me.equals(e.owner()) ? (e.mode() >> 6) & 7 : e.mode() & 7;
        for (AccessMode m : modes) {
            int bit = switch (m) {
                case READ -> 4;
                case WRITE -> 2;
                case EXECUTE -> 1;
            };
            if ((bits & bit) == 0) {
                throw new AccessDeniedException(p.toString(), null, me + " has no " + m + " permission");
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
        CxPath p = cx(path);
        if (type != BasicFileAttributeView.class && type != PosixFileAttributeView.class
                && type != java.nio.file.attribute.FileOwnerAttributeView.class) {
            return null;
        }
        return (V) new PosixFileAttributeView() {
            @Override
            public String name() {
                return type == BasicFileAttributeView.class ? "basic"
                        : type == PosixFileAttributeView.class ? "posix" : "owner";
            }

            @Override
            public PosixFileAttributes readAttributes() throws IOException {
                return new CxAttributes(stat(p));
            }

            @Override
            public void setTimes(FileTime lastModifiedTime, FileTime lastAccessTime, FileTime createTime) {
                throw new UnsupportedOperationException("the name service sets the times of entries");
            }

            @Override
            public void setPermissions(Set<PosixFilePermission> perms) {
                throw new UnsupportedOperationException("modes are set when an entry is made");
            }

            @Override
            public void setGroup(GroupPrincipal group) {
                throw new UnsupportedOperationException("the federation has no groups");
            }

            @Override
            public UserPrincipal getOwner() throws IOException {
                return readAttributes().owner();
            }

            @Override
            public void setOwner(UserPrincipal owner) {
                throw new UnsupportedOperationException("an entry belongs to whoever made it");
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        if (type != BasicFileAttributes.class && type != PosixFileAttributes.class) {
            throw new UnsupportedOperationException("no attributes of " + type.getName() + " in the federation");
        }
        return (A) new CxAttributes(stat(cx(path)));
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
            throws IOException {
        int colon = attributes.indexOf(':');
        String view = colon < 0 ? "basic" : attributes.substring(0, colon);
        String names = colon < 0 ? attributes : attributes.substring(colon + 1);
        if (!view.equals("basic") && !view.equals("posix") && !view.equals("owner")) {
            throw new UnsupportedOperationException("no attribute view '" + view + "' in the federation");
        }
        Map<String, Object> all = new CxAttributes(stat(cx(path))).asMap(view);
        if (names.equals("*")) {
            return all;
        }
        Map<String, Object> out = new HashMap<>();
        for (String n : names.split(",")) {
            if (!all.containsKey(n)) {
                throw new IllegalArgumentException("no attribute '" + n + "' in view " + view);
            }
            out.put(n, all.get(n));
        }
        return out;
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options) {
        throw new UnsupportedOperationException("attributes of federated entries are set by the name service");
    }
}
