package org.cx.fs.nio;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.List;
import java.util.Set;
import org.cx.fs.FsClient;

/** One federation, reached through its name service at {@link #names()}, as a {@link FileSystem}. */
public final class CxFileSystem extends FileSystem {
    private final CxFileSystemProvider provider;
    private final String names;
    private final FsClient client;
    private volatile boolean open = true;

    CxFileSystem(CxFileSystemProvider provider, String names, FsClient client) {
        this.provider = provider;
        this.names = names;
        this.client = client;
    }

    /** The name service's address, {@code host:port}. */
    public String names() {
        return names;
    }

    FsClient client() {
        return client;
    }

    @Override
    public CxFileSystemProvider provider() {
        return provider;
    }

    @Override
    public void close() throws IOException {
        open = false;
        provider.closed(this);
        client.close();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isReadOnly() {
        return false;
    }

    @Override
    public String getSeparator() {
        return "/";
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        return List.of(getPath("/"));
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        return List.of(new CxFileStore(this));
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return Set.of("basic", "posix", "owner");
    }

    @Override
    public Path getPath(String first, String... more) {
        return CxPath.parse(this, first, more);
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        int colon = syntaxAndPattern.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("give glob:PATTERN or regex:PATTERN, not " + syntaxAndPattern);
        }
        String syntax = syntaxAndPattern.substring(0, colon);
        String pattern = syntaxAndPattern.substring(colon + 1);
        PathMatcher local = java.nio.file.FileSystems.getDefault().getPathMatcher(syntax + ":" + pattern);
        return p -> local.matches(java.nio.file.Path.of(p.toString()));
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        throw new UnsupportedOperationException("owners are the names on users' credentials");
    }

    @Override
    public WatchService newWatchService() {
        throw new UnsupportedOperationException("the federation does not watch for changes");
    }

    @Override
    public String toString() {
        return "cx://" + names;
    }
}
