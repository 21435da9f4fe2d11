package org.cx.image;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.FilePermissionsProvider;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Builds cx's OCI image from the distribution's staging directory (its Java runtime made by jlink, its jars), to a
 * tar file, with Jib and without a container daemon or a registry: the base is empty ("scratch"), and the image holds
 * only what cx runs on, the C library and the other shared libraries that {@code ldd} says the runtime and Netty's
 * native transports need, copied from the building machine (as distroless images hold Debian's). Entry point: cx.
 */
public final class ImageBuilder {
    private static final String HOME = "/opt/cx";
    private static final String DATA = "/var/lib/cx";

    private ImageBuilder() {
    }

    /** {@code STAGE OUT.tar NAME:TAG [JVM FLAG …]}. */
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ImageBuilder STAGE OUT.tar NAME:TAG [JVM-FLAG ...]");
            System.exit(2);
        }
        Path stage = Path.of(args[0]).toAbsolutePath();
        Path out = Path.of(args[1]).toAbsolutePath();
        build(stage, out, args[2], List.of(args).subList(3, args.length));
        System.out.println("wrote the image " + args[2] + " to " + out);
    }

    static void build(Path stage, Path out, String name, List<String> jvmFlags) throws Exception {
        Path scratch = Files.createTempDirectory("cx-image-");
        try {
            Path empty = Files.createDirectories(scratch.resolve("empty"));
            FileEntriesLayer.Builder system = FileEntriesLayer.builder().setName("system libraries");
            for (Path library : libraries(stage, scratch.resolve("natives"))) {
                system.addEntry(library.toRealPath(), AbsoluteUnixPath.get(library.toString()),
                        FilePermissions.fromOctalString("755"));
            }
            Path passwd = Files.writeString(scratch.resolve("passwd"), "root:x:0:0:root:" + DATA
                    + ":/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n");
            Path group = Files.writeString(scratch.resolve("group"), "root:x:0:\nnogroup:x:65534:\n");
            system.addEntry(passwd, AbsoluteUnixPath.get("/etc/passwd"), FilePermissions.fromOctalString("644"));
            system.addEntry(group, AbsoluteUnixPath.get("/etc/group"), FilePermissions.fromOctalString("644"));
            system.addEntry(empty, AbsoluteUnixPath.get("/tmp"), FilePermissions.fromOctalString("777"));
            system.addEntry(empty, AbsoluteUnixPath.get(DATA), FilePermissions.fromOctalString("777"));
            List<String> entrypoint = new ArrayList<>(List.of(HOME + "/runtime/bin/java"));
            entrypoint.addAll(jvmFlags);
            entrypoint.addAll(List.of("-cp", HOME + "/lib/*", "org.cx.cli.Cx"));
            JibContainerBuilder image = Jib.fromScratch()
                    .setFormat(ImageFormat.OCI)
                    .addFileEntriesLayer(system.build())
                    .addFileEntriesLayer(tree("java runtime", stage.resolve("runtime"), HOME + "/runtime"))
                    .addFileEntriesLayer(tree("cx", stage.resolve("lib"), HOME + "/lib"))
                    .setEntrypoint(entrypoint)
                    .setProgramArguments("--help")
                    .setEnvironment(Map.of("CX_HOME", DATA, "HOME", DATA))
                    .setWorkingDirectory(AbsoluteUnixPath.get(DATA))
                    .setExposedPorts(Set.of(Port.tcp(7070), Port.tcp(4160), Port.tcp(4161), Port.tcp(9464)))
                    .addLabel("org.opencontainers.image.title", "cx")
                    .addLabel("org.opencontainers.image.description", "CX, a computational exchange: task servers, "
                            + "producers, the lookup service and the cx command");
            image.containerize(Containerizer.to(TarImage.at(out).named(name))
                    .setBaseImageLayersCache(scratch.resolve("base-cache"))
                    .setApplicationLayersCache(scratch.resolve("cache"))
                    .setOfflineMode(true)
                    .setToolName("cx dist"));
        } finally {
            try (Stream<Path> files = Files.walk(scratch)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** A layer of {@code dir}'s files at {@code target}, each keeping its permissions (the runtime's executables). */
    private static FileEntriesLayer tree(String name, Path dir, String target) throws IOException {
        FilePermissionsProvider keep = (source, inImage) -> {
            try {
                return FilePermissions.fromPosixFilePermissions(Files.getPosixFilePermissions(source));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        return FileEntriesLayer.builder().setName(name).addEntryRecursive(dir, AbsoluteUnixPath.get(target), keep)
                .build();
    }

    /**
     * The shared libraries of this machine that the runtime's executables and libraries, and the native libraries
     * inside the jars (extracted to {@code natives}), load: what {@code ldd} resolves outside the stage.
     */
    static Set<Path> libraries(Path stage, Path natives) throws IOException, InterruptedException {
        List<Path> binaries = new ArrayList<>();
        try (Stream<Path> files = Files.walk(stage.resolve("runtime"))) {
            files.filter(f -> f.toString().endsWith(".so") || f.getParent().getFileName().toString().equals("bin")
                    || f.getFileName().toString().equals("jspawnhelper")).filter(Files::isRegularFile)
                    .forEach(binaries::add);
        }
        Files.createDirectories(natives);
        try (Stream<Path> jars = Files.list(stage.resolve("lib"))) {
            for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).toList()) {
                try (ZipFile zip = new ZipFile(jar.toFile())) {
                    for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                        if (e.getName().startsWith("META-INF/native/") && e.getName().endsWith(".so")
                                && e.getName().contains("x86_64")) {
                            Path to = natives.resolve(Path.of(e.getName()).getFileName().toString());
                            try (InputStream in = zip.getInputStream(e)) {
                                Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
                            }
                            binaries.add(to);
                        }
                    }
                }
            }
        }
        Set<Path> found = new TreeSet<>();
        for (Path binary : binaries) {
            Process ldd = new ProcessBuilder("ldd", binary.toString()).redirectErrorStream(true).start();
            String text = new String(ldd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ldd.waitFor(30, TimeUnit.SECONDS)) {
                throw new IOException("ldd " + binary + " did not finish");
            }
            for (String line : text.lines().toList()) {
                for (String word : line.trim().split("\\s+")) {
                    if (word.startsWith("/")) {
                        Path library = Path.of(word);
                        if (!library.startsWith(stage) && !library.startsWith(natives) && Files.exists(library)) {
                            found.add(library);
                        }
                        break;
                    }
                }
            }
        }
        if (found.stream().noneMatch(p -> p.getFileName().toString().startsWith("libc.so"))) {
            throw new IOException("ldd found no C library for the runtime: build the image on Linux with glibc");
        }
        return found;
    }
}
