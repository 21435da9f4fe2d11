package org.cx.fs.nio;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileStoreAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;
import org.cx.fs.FsClient;

/** The federation's space: the sum over the file servers that are up. */
final class CxFileStore extends FileStore {
    private final CxFileSystem fs;

    CxFileStore(CxFileSystem fs) {
        this.fs = fs;
    }

    @Override
    public String name() {
        return fs.toString();
    }

    @Override
    public String type() {
        return "cx";
    }

    @Override
    public boolean isReadOnly() {
        return false;
    }

    private long sum(boolean free) throws IOException {
        long total = 0;
        for (FsClient.ServerInfo s : fs.client().servers()) {
            if (s.alive()) {
                total += free ? s.free() : s.capacity();
            }
        }
        return total;
    }

    @Override
    public long getTotalSpace() throws IOException {
        return sum(false);
    }

    @Override
    public long getUsableSpace() throws IOException {
        return sum(true);
    }

    @Override
    public long getUnallocatedSpace() throws IOException {
        return sum(true);
    }

    @Override
    public boolean supportsFileAttributeView(Class<? extends FileAttributeView> type) {
        return type == BasicFileAttributeView.class || type == PosixFileAttributeView.class;
    }

    @Override
    public boolean supportsFileAttributeView(String name) {
        return fs.supportedFileAttributeViews().contains(name);
    }

    @Override
    public <V extends FileStoreAttributeView> V getFileStoreAttributeView(Class<V> type) {
        return null;
    }

    @Override
    public Object getAttribute(String attribute) {
        throw new UnsupportedOperationException("no file store attribute " + attribute);
    }
}
