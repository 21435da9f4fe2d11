package org.cx.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.spi.ToolProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cx dist}: the self-contained distribution a volunteer installs without Maven or a JDK: a runtime made by
 * jlink from this JDK with the modules the jars need (found by jdeps), the jars, and {@code bin/cx}.
 */
@Command(name = "dist", mixinStandardHelpOptions = true,
        description = {"Builds the self-contained distribution of this cx: cx-" + DistCommand.VERSION + ".tar.gz "
                + "(a Java runtime made by jlink, the jars, bin/cx); with --deb, a Debian package made by "
                + "jpackage (installs to /opt/cx); with --image, an OCI image made by Jib.",
            "Run it from a built checkout (./cx dist); whoever unpacks the archive needs neither Maven nor a JDK."})
final class DistCommand extends Printing implements Callable<Integer> {
    static final String VERSION = "0.1.0";
    /**
     * Modules loaded by name or reflection, which jdeps does not see (jdk.naming.rmi: the JMX connector's JNDI;
     * jdk.management.agent: the JDK's agent, for -Dcom.sun.management.jmxremote.* in CX_JAVA_OPTS).
     */
    private static final List<String> ALSO = List.of("jdk.zipfs", "jdk.crypto.ec", "jdk.net", "jdk.naming.rmi",
            "jdk.management.agent");

    @Option(names = "--out", defaultValue = "dist", paramLabel = "DIR",
            description = "Where to write the archive (and the package). Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--deb", description = "Also build cx_" + VERSION + "_amd64.deb with jpackage (needs fakeroot "
            + "and dpkg-deb).")
    boolean deb;

    @Option(names = "--image", description = "Also build the OCI image cx:" + VERSION + " to cx-" + VERSION
            + "-image.tar with Jib (no container daemon or registry needed): load it with 'docker load', 'podman "
            + "load' or 'skopeo copy oci-archive:…'. Its entry point is cx; it holds the runtime, the jars and the "
            + "C library they need, nothing else.")
    boolean image;

    @Override
    public Integer call() throws Exception {
        List<Path> jars = classPathJars();
        String name = "cx-" + VERSION;
        Path stage = out.resolve(name);
        if (Files.exists(stage)) {
            throw new IllegalArgumentException(stage + " exists already: remove it, or give another --out");
        }
        Path lib = Files.createDirectories(stage.resolve("lib"));
        for (Path jar : jars) {
            Files.copy(jar, lib.resolve(jar.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
        }
        say("copied " + jars.size() + " jars to " + lib);
        String modules = String.join(",", modules(jars));
        run("jlink", "--add-modules", modules, "--output", stage.resolve("runtime").toString(), "--strip-debug",
                "--no-man-pages", "--no-header-files", "--compress", "zip-6");
        say("made a runtime with " + modules);
        Path bin = Files.createDirectories(stage.resolve("bin"));
        Files.writeString(bin.resolve("cx"), launcher());
        Files.setPosixFilePermissions(bin.resolve("cx"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path archive = out.resolve(name + ".tar.gz");
        Process tar = new ProcessBuilder("tar", "-czf", archive.toString(), "-C", out.toString(), name)
                .redirectErrorStream(true).start();
        String tarOut = new String(tar.getInputStream().readAllBytes());
        if (tar.waitFor() != 0) {
            throw new IOException("tar failed: " + tarOut.trim());
        }
        say("wrote " + archive + " (" + (Files.size(archive) >> 20) + " MiB): unpack it anywhere and run "
                + name + "/bin/cx");
        if (image) {
            Path imageTar = out.resolve(name + "-image.tar");
            buildImage(stage, imageTar);
            say("wrote the image cx:" + VERSION + " to " + imageTar + " (" + (Files.size(imageTar) >> 20) + " MiB)");
        }
        if (deb) {
            run("jpackage", "--type", "deb", "--name", "cx", "--app-version", VERSION, "--input", lib.toString(),
                    "--main-jar", jars.get(0).getFileName().toString(), "--main-class", Cx.class.getName(),
                    "--runtime-image", stage.resolve("runtime").toString(), "--dest", out.toString(),
                    "--description", "CX, a computational exchange: task servers, producers and consumers",
                    "--vendor", "CX", "--linux-package-name", "cx", "--java-options",
                    String.join(" ", jvmFlags()) + " -Dcx.launcher=$BINDIR/cx");
            say("wrote the Debian package to " + out + " (installs /opt/cx/bin/cx)");
        }
        return 0;
    }

    /**
     * The jars of this process's class path, cx's own first; cx must run from its jar (a built checkout's, as
     * {@code ./cx} runs it), and directories on the class path are left out.
     */
    private static List<Path> classPathJars() throws java.net.URISyntaxException {
        Path own = Path.of(Cx.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!Files.isRegularFile(own)) {
            throw new IllegalArgumentException("cx runs from " + own + ", not from its jar: run cx dist from a built "
                    + "checkout (./mvnw package, then ./cx dist)");
        }
        List<Path> jars = new ArrayList<>(List.of(own));
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath();
            if (entry.endsWith(".jar") && Files.isRegularFile(p) && !p.equals(own.toAbsolutePath())) {
                jars.add(p);
            }
        }
        return jars;
    }

    /**
     * Runs the image module's builder (Jib stays off cx's own class path) on the staged distribution: from the
     * checkout cx runs from, whose {@code image/target} holds the builder's jar and class path.
     */
    private void buildImage(Path stage, Path tar) throws IOException, InterruptedException {
        Path module = checkout().resolve("image").resolve("target");
        Path classPath = module.resolve("image.classpath");
        Path jar = module.resolve("image-" + VERSION + "-SNAPSHOT.jar");
        if (!Files.isRegularFile(classPath) || !Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("the image builder is not built in " + module + ": run ./mvnw "
                    + "package first");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", jar + File.pathSeparator + Files.readString(classPath).trim(),
                "org.cx.image.ImageBuilder", stage.toAbsolutePath().toString(), tar.toAbsolutePath().toString(),
                "cx:" + VERSION));
        command.addAll(jvmFlags());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("building the image failed: " + output.trim());
        }
    }

    /** The checkout cx runs from: beside {@code ./cx} ({@code -Dcx.launcher}), or above the working directory. */
    private static Path checkout() {
        String launcher = System.getProperty("cx.launcher");
        if (launcher != null && Files.isDirectory(Path.of(launcher).getParent().resolve("image"))) {
            return Path.of(launcher).getParent();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("image").resolve("target"))) {
                return dir;
            }
        }
        throw new IllegalArgumentException("cx dist --image runs from a built checkout (./cx dist --image)");
    }

    /** What jdeps finds the jars need, and the modules named {@link #ALSO} that this JDK has. */
    private static Set<String> modules(List<Path> jars) throws IOException {
        List<String> args = new ArrayList<>(List.of("--ignore-missing-deps", "--print-module-deps",
                "--multi-release", Integer.toString(Runtime.version().feature()), "-q"));
        jars.forEach(j -> args.add(j.toString()));
        Set<String> modules = new LinkedHashSet<>(List.of(run("jdeps", args.toArray(String[]::new)).trim()
                .split(",")));
        for (String m : ALSO) {
            if (ModuleLayer.boot().findModule(m).isPresent()) {
                modules.add(m);
            }
        }
        return modules;
    }

    /** Runs a JDK tool in this process; its output, or an exception with it. */
    private static String run(String tool, String... args) throws IOException {
        ToolProvider provider = ToolProvider.findFirst(tool).orElseThrow(() -> new IOException("this Java runtime "
                + "has no " + tool + ": run cx dist on a full JDK"));
        StringWriter text = new StringWriter();
        PrintWriter w = new PrintWriter(text);
        int status = provider.run(w, w, args);
        w.flush();
        if (status != 0) {
            throw new IOException(tool + " failed (status " + status + "): " + text.toString().trim());
        }
        return text.toString();
    }

    private static List<String> jvmFlags() {
        return Runtime.version().feature() >= 24
                ? List.of("--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED") : List.of();
    }

    private static String launcher() {
        return """
                #!/bin/sh
                # cx, as unpacked from its distribution: its own Java runtime and jars. Extra JVM options: CX_JAVA_OPTS.
                here=$(cd "$(dirname "$0")/.." && pwd)
                # shellcheck disable=SC2086
                exec "$here/runtime/bin/java" %s ${CX_JAVA_OPTS:-} -Dcx.launcher="$here/bin/cx" -cp "$here/lib/*" \\
                    org.cx.cli.Cx "$@"
                """.formatted(String.join(" ", jvmFlags()));
    }

    private void say(String line) {
        out().println("cx dist: " + line);
        out().flush();
    }
}
