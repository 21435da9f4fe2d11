package org.cx.harness;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** Application jars made on the fly from classes this process has: for benchmarks and tests. */
public final class AppJars {
    private AppJars() {
    }

    /** A jar of the entries {@code name → bytes}. */
    public static byte[] jar(Map<String, byte[]> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(out)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                jar.putNextEntry(new JarEntry(e.getKey()));
                jar.write(e.getValue());
                jar.closeEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The class files of {@code example}'s package (not its subpackages' siblings), wherever they are. */
    public static Map<String, byte[]> packageOf(Class<?> example) throws IOException {
        String prefix = example.getPackageName().replace('.', '/') + "/";
        Path location = location(example);
        Map<String, byte[]> entries = new TreeMap<>();
        if (Files.isDirectory(location)) {
            try (Stream<Path> files = Files.walk(location.resolve(prefix))) {
                for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                    entries.put(location.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
                }
            }
        } else {
            try (JarFile jar = new JarFile(location.toFile())) {
                for (JarEntry e : (Iterable<JarEntry>) jar.stream()::iterator) {
                    if (e.getName().startsWith(prefix) && !e.isDirectory()) {
                        entries.put(e.getName(), jar.getInputStream(e).readAllBytes());
                    }
                }
            }
        }
        return entries;
    }

    /** Where {@code type}'s class file comes from: a directory or a jar. */
    public static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
