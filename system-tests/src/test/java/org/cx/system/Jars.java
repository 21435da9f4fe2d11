package org.cx.system;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.cx.api.Task;

/** Application jars for the code-distribution tests, made at test time. */
final class Jars {
    private Jars() {
    }

    /** A jar of the entries {@code name → bytes}. */
    static byte[] jar(Map<String, byte[]> entries) {
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

    /** The class files of {@code example}'s package, from wherever the test class path has them. */
    static Map<String, byte[]> packageOf(Class<?> example) throws IOException {
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

    /** Compiles Java sources ({@code "app.Version" → source}) against the public API; returns the class files. */
    static Map<String, byte[]> compile(Map<String, String> sources, Path work) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Path src = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp",
                location(Task.class).toString(), "--release", "21"));
        for (Map.Entry<String, String> s : sources.entrySet()) {
            Path file = src.resolve(s.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, s.getValue());
            args.add(file.toString());
        }
        int status = javac.run(null, null, null, args.toArray(String[]::new));
        if (status != 0) {
            throw new IllegalStateException("javac failed with status " + status);
        }
        Map<String, byte[]> entries = new TreeMap<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                entries.put(classes.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            }
        }
        return entries;
    }

    private static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
