package io.paycallback.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.paycallback.config.PayCallbackConfig;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading the repository's deployment files and the application's production configuration for {@link ManifestsTest}. */
final class Manifests {

    /** Surefire runs in the module directory. */
    static final Path ROOT = Path.of(System.getProperty("user.dir"));

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private Manifests() {
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

    /**
     * A leaf of {@link PayCallbackConfig}: its property name with {@code *} for each map key, and whether it has a
     * default (tuning) or must be supplied (keys and secrets).
     */
    record ConfigKey(String pattern, boolean hasDefault) {

        boolean matches(String property) {
            String[] want = pattern.split("\\.");
            String[] have = property.split("\\.");
            if (want.length != have.length) {
                return false;
            }
            for (int i = 0; i < want.length; i++) {
                if (!want[i].equals("*") && !want[i].equals(have[i])) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Every leaf key the application's {@code @ConfigMapping} reads and does not deprecate, from the interface itself. */
    static List<ConfigKey> applicationKeys() {
        List<ConfigKey> keys = new ArrayList<>();
        collect("paycallback", PayCallbackConfig.class, keys);
        return keys;
    }

    private static void collect(String prefix, Class<?> group, List<ConfigKey> keys) {
        for (Method method : group.getDeclaredMethods()) {
            // Deprecated keys still work but are not to be set any more: the manifests must not show them.
            if (method.isDefault() || method.isSynthetic() || method.getParameterCount() > 0
                    || method.isAnnotationPresent(Deprecated.class)) {
                continue;
            }
            WithName withName = method.getAnnotation(WithName.class);
            String name = prefix + "." + (withName != null ? withName.value() : kebab(method.getName()));
            collect(name, method.getGenericReturnType(), method.isAnnotationPresent(WithDefault.class), keys);
        }
    }

    private static void collect(String name, Type type, boolean hasDefault, List<ConfigKey> keys) {
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            Type[] arguments = parameterized.getActualTypeArguments();
            if (raw == Map.class) {
                collect(name + ".*", arguments[1], hasDefault, keys);
                return;
            }
            if (raw == Optional.class) {
                collect(name, arguments[0], hasDefault, keys);
                return;
            }
            keys.add(new ConfigKey(name, hasDefault));
            return;
        }
        Class<?> raw = (Class<?>) type;
        if (raw.isInterface() && raw.getName().startsWith(PayCallbackConfig.class.getName())) {
            collect(name, raw, keys);
        } else {
            keys.add(new ConfigKey(name, hasDefault));
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
