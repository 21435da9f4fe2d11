package org.cx.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Kubernetes manifests in {@code deploy/kubernetes}: valid against the Kubernetes API's schemas, strictly (no
 * property the API does not have), by {@code kubernetes-validate} (PyPI; {@code .ci/run} installs it); and every
 * container's arguments are a {@code cx} command line that parses.
 */
class KubernetesManifestsTest {
    private static final Path DIR = Path.of("..", "deploy", "kubernetes");

    @Test
    void theManifestsAreValidAgainstTheKubernetesSchemas() throws Exception {
        Path validator = validator();
        Assumptions.assumeTrue(validator != null, "kubernetes-validate is not installed here (.ci/run installs it): "
                + "the manifests are not checked against the schemas");
        List<String> command = new ArrayList<>(List.of(validator.toString(), "--strict"));
        manifests().forEach(m -> command.add(m.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "kubernetes-validate did not finish");
        System.out.print(out);
        assertEquals(0, p.exitValue(), out);
        assertFalse(out.contains("ERROR"), out);
        assertTrue(out.contains("statefulset/cx-server") && out.contains("deployment/cx-producer")
                && out.contains("deployment/cx-lookup"), "the servers, producers and lookup service are there");
    }

    @Test
    void everyContainersArgumentsAreACxCommandLine() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        int containers = 0;
        for (Path manifest : manifests()) {
            try (MappingIterator<JsonNode> docs = yaml.readerFor(JsonNode.class).readValues(manifest.toFile())) {
                for (JsonNode doc : docs.readAll()) {
                    for (JsonNode c : doc.path("spec").path("template").path("spec").path("containers")) {
                        List<String> args = new ArrayList<>();
                        c.path("args").forEach(a -> args.add(a.asText().replace("$(POD_NAME)", "cx-server-0")));
                        CommandLine cl = Cx.commandLine();
                        cl.parseArgs(args.toArray(String[]::new)); // throws on an unknown option or a bad value
                        assertEquals("cx:0.1.0", c.path("image").asText(), manifest + ": the image cx dist builds");
                        containers++;
                    }
                }
            }
        }
        assertEquals(3, containers, "lookup, server and producer");
    }

    private static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    /** $KUBERNETES_VALIDATE, else kubernetes-validate on the PATH; null if neither. */
    private static Path validator() {
        String named = System.getenv("KUBERNETES_VALIDATE");
        if (named != null && Files.isExecutable(Path.of(named))) {
            return Path.of(named);
        }
        for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "kubernetes-validate");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
