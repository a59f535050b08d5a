package io.paycallback.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.paycallback.testsupport.ConfigKeys;
import org.xml.sax.SAXException;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

/**
 * Reading the deployment files as kustomize renders them, and the application's production configuration, for
 * {@link ManifestsTest}.
 */
final class Manifests {

    /** Surefire runs in the module directory. */
    static final Path ROOT = Path.of(System.getProperty("user.dir"));

    static final Path OVERLAYS = ROOT.resolve("k8s/overlays");
    /** Where the renderings are left for a person to read; .ci/manifests writes the same files. */
    static final Path RENDERED = ROOT.resolve("target/k8s");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Map<String, Rendering> RENDERINGS = new ConcurrentHashMap<>();

    private Manifests() {
    }

    /** The objects of one overlay as {@code kubectl kustomize} renders them, i.e. what {@code kubectl apply -k} sends. */
    record Rendering(String overlay, List<JsonNode> objects) {

        List<JsonNode> all(String kind) {
            return objects.stream().filter(object -> object.path("kind").asText().equals(kind)).toList();
        }

        JsonNode one(String kind) {
            List<JsonNode> found = all(kind);
            if (found.size() != 1) {
                throw new AssertionError(overlay + " renders " + found.size() + " objects of kind " + kind + ", expected one");
            }
            return found.get(0);
        }

        <T> T one(String kind, Class<T> type) {
            return YAML.convertValue(one(kind), type);
        }
    }

    /** The overlays under k8s/overlays. */
    static List<String> overlays() {
        try (Stream<Path> list = Files.list(OVERLAYS)) {
            return list.filter(Files::isDirectory).map(path -> path.getFileName().toString())
                    .collect(Collectors.toCollection(TreeSet::new)).stream().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Renders k8s/overlays/{overlay} with {@code kubectl kustomize} (once per test JVM) into target/k8s/{overlay}.yaml
     * and reads it back.
     */
    static Rendering rendering(String overlay) {
        return RENDERINGS.computeIfAbsent(overlay, Manifests::render);
    }

    private static Rendering render(String overlay) {
        Path output = RENDERED.resolve(overlay + ".yaml");
        Path errors = RENDERED.resolve(overlay + ".stderr");
        Process kubectl;
        try {
            Files.createDirectories(RENDERED);
            kubectl = new ProcessBuilder("kubectl", "kustomize", OVERLAYS.resolve(overlay).toString())
                    .redirectOutput(output.toFile()).redirectError(errors.toFile()).start();
        } catch (IOException e) {
            throw new AssertionError("ManifestsTest renders k8s/overlays/* with `kubectl kustomize`, and kubectl could not be "
                    + "started (" + e.getMessage() + "). Install kubectl (it bundles kustomize) and put it on the PATH.", e);
        }
        try {
            if (!kubectl.waitFor(2, TimeUnit.MINUTES)) {
                kubectl.destroyForcibly();
                throw new AssertionError("kubectl kustomize k8s/overlays/" + overlay + " did not finish in 2 minutes");
            }
            if (kubectl.exitValue() != 0) {
                throw new AssertionError("kubectl kustomize k8s/overlays/" + overlay + " failed:\n" + Files.readString(errors));
            }
            try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(output.toFile())) {
                return new Rendering(overlay, documents.readAll().stream().filter(node -> !node.isNull()).toList());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(output.toString(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while rendering " + overlay, e);
        }
    }

    /** The project's version, from pom.xml. */
    static String projectVersion() {
        try {
            var pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile());
            var children = pom.getDocumentElement().getChildNodes();
            for (int i = 0; i < children.getLength(); i++) {
                if (children.item(i).getNodeName().equals("version")) {
                    return children.item(i).getTextContent().strip();
                }
            }
            throw new AssertionError("pom.xml has no project version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("pom.xml", e);
        }
    }

    static <T> T read(String path, Class<T> type) {
        try {
            return YAML.readValue(ROOT.resolve(path).toFile(), type);
        } catch (IOException e) {
            throw new UncheckedIOException(path, e);
        }
    }

    static JsonNode tree(String path) {
        return read(path, JsonNode.class);
    }

    /** A YAML (or JSON) document from a string. */
    static JsonNode parse(String document) {
        try {
            return YAML.readTree(document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String text(String path) {
        try {
            return Files.readString(ROOT.resolve(path));
        } catch (IOException e) {
            throw new UncheckedIOException(path, e);
        }
    }

    static Properties properties(String content) {
        Properties properties = new Properties();
        try (Reader reader = new StringReader(content)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }

    /** Dockerfile instructions with line continuations joined, so an instruction is one string. */
    static List<String> dockerfileInstructions(String path) {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text(path).split("\n")) {
            String trimmed = line.strip();
            if (current.isEmpty() && (trimmed.isEmpty() || trimmed.startsWith("#"))) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
            } else {
                instructions.add(current.append(trimmed).toString());
                current.setLength(0);
            }
        }
        return instructions;
    }

    /** The working directory of the image's final stage. */
    static String workdir(String dockerfile) {
        String workdir = null;
        for (String instruction : dockerfileInstructions(dockerfile)) {
            if (instruction.startsWith("FROM ")) {
                workdir = null;
            } else if (instruction.startsWith("WORKDIR ")) {
                workdir = instruction.substring("WORKDIR ".length()).strip().replaceAll("/$", "");
            }
        }
        if (workdir == null) {
            throw new AssertionError(dockerfile + " sets no WORKDIR in its final stage");
        }
        return workdir;
    }

    static String env(String dockerfile, String name) {
        Pattern env = Pattern.compile("^ENV " + Pattern.quote(name) + "=\"([^\"]*)\"$");
        for (String instruction : dockerfileInstructions(dockerfile)) {
            Matcher matcher = env.matcher(instruction);
            if (matcher.matches()) {
                return matcher.group(1);
            }
        }
        throw new AssertionError(dockerfile + " has no ENV " + name + "=\"...\"");
    }

    /** The environment variable SmallRye Config maps to a property name. */
    static String envName(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /** Quarkus duration syntax: ISO-8601, a number of seconds, or a number with ms, s, m, h or d. */
    static Duration duration(String value) {
        String v = value.strip();
        if (v.startsWith("P") || v.startsWith("p")) {
            return Duration.parse(v);
        }
        Matcher matcher = Pattern.compile("(\\d+)(ms|s|m|h|d)?").matcher(v.toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not a duration: " + value);
        }
        long amount = Long.parseLong(matcher.group(1));
        String unit = matcher.group(2) == null ? "s" : matcher.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    /** Sizes as Quarkus, nginx and the JVM write them: a number of bytes with an optional K, M or G (1024-based). */
    static long bytes(String value) {
        Matcher matcher = Pattern.compile("(\\d+)([kmg])?b?").matcher(value.strip().toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not a size: " + value);
        }
        long amount = Long.parseLong(matcher.group(1));
        String unit = matcher.group(2);
        return unit == null ? amount : switch (unit) {
            case "k" -> amount << 10;
            case "m" -> amount << 20;
            default -> amount << 30;
        };
    }

    /** Every leaf key the application's {@code @ConfigMapping} reads and does not deprecate, from the interface itself. */
    static List<ConfigKeys.Key> applicationKeys() {
        // Deprecated keys still work but are not to be set any more: the manifests must not show them.
        return ConfigKeys.all().stream().filter(key -> !key.deprecated()).toList();
    }
}
