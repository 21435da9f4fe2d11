package org.cx.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.cx.api.Task;
import org.cx.harness.AppJars;

/** Application classes compiled at test time (see {@link AppJars} for jars of classes the tests have). */
final class Jars {
    private Jars() {
    }

    /** Compiles Java sources ({@code "app.Version" → source}) against the public API; returns the class files. */
    static Map<String, byte[]> compile(Map<String, String> sources, Path work) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Path src = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp",
                AppJars.location(Task.class).toString(), "--release", "21"));
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
}
