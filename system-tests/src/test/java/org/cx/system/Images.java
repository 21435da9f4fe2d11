package org.cx.system;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Runs an OCI image without a container engine: its layers unpacked into a root, its entry point in bubblewrap. */
final class Images {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Images() {
    }

    /**
     * Unpacks the OCI archive {@code tar} (one image) into {@code root} and returns the command that runs its entry
     * point there: bubblewrap with the root as {@code /}, the image's environment and working directory, this
     * machine's network (so that the test reaches its servers on loopback).
     */
    static List<String> unpacked(Path tar, Path root) throws IOException, InterruptedException {
        Path layout = Files.createDirectories(root.resolveSibling(root.getFileName() + "-oci"));
        exec("tar", "-xf", tar.toString(), "-C", layout.toString());
        JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        String manifestDigest = index.path("manifests").get(0).path("digest").asText();
        JsonNode manifest = JSON.readTree(blob(layout, manifestDigest).toFile());
        JsonNode config = JSON.readTree(blob(layout, manifest.path("config").path("digest").asText()).toFile())
                .path("config");
        Files.createDirectories(root);
        for (JsonNode layer : manifest.path("layers")) {
            exec("tar", "--warning=no-unknown-keyword", "-xzf", blob(layout, layer.path("digest").asText()).toString(),
                    "-C", root.toString());
        }
        List<String> command = new ArrayList<>(List.of("bwrap", "--bind", root.toString(), "/", "--proc", "/proc",
                "--dev", "/dev", "--die-with-parent", "--chdir", config.path("WorkingDir").asText("/")));
        for (JsonNode variable : config.path("Env")) {
            String[] kv = variable.asText().split("=", 2);
            command.addAll(List.of("--setenv", kv[0], kv[1]));
        }
        config.path("Entrypoint").forEach(e -> command.add(e.asText()));
        return command;
    }

    private static Path blob(Path layout, String digest) {
        return layout.resolve("blobs").resolve("sha256").resolve(digest.substring(digest.indexOf(':') + 1));
    }

    private static void exec(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }
}
