package io.paycallback.docs;

import io.paycallback.testsupport.ConfigKeys;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/run-it-yourself.md, which .ci/run-it-yourself runs against a real MariaDB: here, without one, its configuration
 * file (the page's one {@code properties} block) against the application. Every {@code paycallback.*} key is one the
 * application reads, none deprecated; the merchant is the dev profile's demo merchant, whose keys
 * deploy/dev/SendSample.java signs with; every token is long enough and its own, and the commands use only those; the
 * SQL creates the database and the accounts the file names.
 */
class RunItYourselfPageTest {

    static final Path PAGE = DocsLinksTest.ROOT.resolve("docs/run-it-yourself.md");
    private static final String MERCHANT = "paycallback.merchants.default.";
    private static final Pattern TOKEN_KEY = Pattern.compile("paycallback\\.auth\\.(order-service|operators)\\.tokens\\..+");
    private static final Pattern TOKEN_USE = Pattern.compile("(?:Bearer |TOKEN=)([^\\s'\"$]+)");

    /** The bodies of the page's fenced blocks of one language, in page order. */
    static List<String> blocks(String language) {
        List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        boolean inOther = false;
        for (String line : lines()) {
            if (block == null && !inOther && line.startsWith("```")) {
                if (line.equals("```" + language)) {
                    block = new StringBuilder();
                } else {
                    inOther = true;
                }
            } else if (line.startsWith("```")) {
                if (block != null) {
                    blocks.add(block.toString());
                }
                block = null;
                inOther = false;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        return blocks;
    }

    private static List<String> lines() {
        try {
            return Files.readAllLines(PAGE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> configuration() {
        List<String> properties = blocks("properties");
        assertThat(properties).as("the page's configuration file: one properties block").hasSize(1);
        Properties file = new Properties();
        try {
            file.load(new StringReader(properties.get(0)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> settings = new TreeMap<>();
        file.forEach((key, value) -> settings.put((String) key, (String) value));
        return settings;
    }

    @Test
    void everyKeyOfTheConfigurationFileIsOneTheApplicationReads() {
        List<ConfigKeys.Key> keys = ConfigKeys.all();
        Map<String, String> settings = configuration();
        for (String name : settings.keySet()) {
            if (name.startsWith("paycallback.")) {
                Optional<ConfigKeys.Key> key = keys.stream().filter(k -> k.matches(name)).findFirst();
                assertThat(key).as("a configuration mapping reads %s", name).isPresent();
                assertThat(key.get().deprecated()).as("%s is deprecated", name).isFalse();
            } else {
                assertThat(name).as("a Quarkus key of the page").startsWith("quarkus.");
            }
        }
        assertThat(settings).containsKeys("quarkus.datasource.jdbc.url", "quarkus.datasource.reactive.url",
                "quarkus.datasource.username", "quarkus.datasource.password",
                "quarkus.flyway.username", "quarkus.flyway.password");
        assertThat(settings.keySet()).anyMatch(name -> name.matches("paycallback\\.downstream\\.destinations\\.[^.]+\\.url"));
        assertThat(settings.keySet()).anyMatch(name -> name.matches("paycallback\\.downstream\\.destinations\\.[^.]+\\.events"));
        assertThat(settings.values()).noneMatch(value -> value.contains("REPLACE_ME"));
    }

    /** SendSample signs for the merchant default with the demo keys: the page's merchant must trust exactly those. */
    @Test
    void theMerchantIsTheDevProfilesDemoMerchant() {
        Map<String, String> demo = new TreeMap<>();
        SmallRyeConfig dev = devProfile();
        for (String name : dev.getPropertyNames()) {
            if (name.startsWith(MERCHANT)) {
                demo.put(name.replace("\"", ""), dev.getRawValue(name));
            }
        }
        assertThat(demo).isNotEmpty();
        Map<String, String> page = new TreeMap<>();
        configuration().forEach((name, value) -> {
            if (name.startsWith("paycallback.merchants.")) {
                page.put(name.replace("\"", ""), value);
            }
        });
        assertThat(page).isEqualTo(demo);
    }

    @Test
    void everyTokenIsLongEnoughAndItsOwnAndTheCommandsUseOnlyThose() {
        Set<String> tokens = new HashSet<>();
        Set<String> roles = new HashSet<>();
        configuration().forEach((name, value) -> {
            Matcher token = TOKEN_KEY.matcher(name);
            if (token.matches()) {
                roles.add(token.group(1));
                assertThat(value).as(name).hasSizeGreaterThanOrEqualTo(16);
                assertThat(tokens.add(value)).as("%s is shared", name).isTrue();
            }
        });
        assertThat(roles).containsExactlyInAnyOrder("order-service", "operators");
        for (String block : blocks("bash")) {
            Matcher use = TOKEN_USE.matcher(block);
            while (use.find()) {
                assertThat(tokens).as("a token the page's commands use").contains(use.group(1));
            }
        }
    }

    @Test
    void theSqlCreatesTheDatabaseAndTheAccountsTheConfigurationNames() {
        Map<String, String> settings = configuration();
        String sql = String.join("\n", blocks("sql"));
        String database = settings.get("quarkus.datasource.jdbc.url").replaceFirst("^.*/", "");
        assertThat(settings.get("quarkus.datasource.reactive.url")).endsWith("/" + database);
        assertThat(sql).contains("CREATE DATABASE " + database + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;");
        for (String account : List.of("quarkus.datasource", "quarkus.flyway")) {
            assertThat(sql).contains("CREATE USER '" + settings.get(account + ".username") + "'@'127.0.0.1' IDENTIFIED BY '"
                    + settings.get(account + ".password") + "';");
        }
    }

    private static SmallRyeConfig devProfile() {
        URL properties = RunItYourselfPageTest.class.getClassLoader().getResource("application.properties");
        try {
            return new SmallRyeConfigBuilder().withProfile("dev").withSources(new PropertiesConfigSource(properties)).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
