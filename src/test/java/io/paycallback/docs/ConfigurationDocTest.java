package io.paycallback.docs;

import io.paycallback.testsupport.ConfigKeys;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md against the configuration mappings themselves ({@code ConfigKeys}): every key is a row of its
 * tables with the code's default, no row names a key the application does not read, and no page of the docs mentions
 * one.
 */
class ConfigurationDocTest {

    static final Path PAGE = DocsLinksTest.ROOT.resolve("docs/configuration.md");
    /** "—" in the default column: the key has no default. */
    static final String NO_DEFAULT = "—";

    private static final Pattern ROW = Pattern.compile("^\\|\\s*`(paycallback\\.[^`]+)`\\s*\\|\\s*([^|]*?)\\s*\\|");
    /**
     * A key named in prose: not the tail of a Java package name or of a file name (realm-paycallback.json), and up to
     * the first character a key cannot have.
     */
    private static final Pattern MENTION = Pattern.compile("(?:(?<=-D)|(?<![\\w-]))(?<!io\\.)paycallback\\.([a-z0-9<>*_.-]*[a-z0-9>*])");

    /** The rows of the page: the key, map keys written {@code <name>} turned into {@code *}, to its default cell. */
    static Map<String, String> rows() throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(PAGE)) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                String key = pattern(row.group(1));
                assertThat(rows).as("%s is listed twice", row.group(1)).doesNotContainKey(key);
                rows.put(key, row.group(2));
            }
        }
        return rows;
    }

    private static String pattern(String written) {
        return written.replaceAll("<[^>]+>", "*");
    }

    @Test
    void everyKeyIsListedWithItsDefault() throws IOException {
        Map<String, String> rows = rows();
        for (ConfigKeys.Key key : ConfigKeys.all()) {
            assertThat(rows).as("docs/configuration.md lists %s", key.pattern()).containsKey(key.pattern());
            String expected = key.defaultValue().map(value -> "`" + value + "`").orElse(NO_DEFAULT);
            assertThat(rows.get(key.pattern())).as("the default of %s", key.pattern()).isEqualTo(expected);
        }
    }

    @Test
    void theTableNamesNoKeyTheApplicationDoesNotRead() throws IOException {
        List<String> keys = ConfigKeys.all().stream().map(ConfigKeys.Key::pattern).toList();
        assertThat(keys).containsAll(rows().keySet());
    }

    /** Prose may name a key or a group of keys ({@code paycallback.providers.*}), never one that does not exist. */
    @Test
    void noPageMentionsAKeyThatDoesNotExist() throws IOException {
        List<ConfigKeys.Key> keys = ConfigKeys.all();
        for (Path page : DocsLinksTest.pages()) {
            Matcher mention = MENTION.matcher(Files.readString(page));
            while (mention.find()) {
                String named = pattern("paycallback." + mention.group(1)).replaceFirst("\\.\\*$", "");
                Optional<ConfigKeys.Key> found = keys.stream().filter(key -> key.matches(named) || isGroupOf(named, key)).findFirst();
                assertThat(found).as("%s names %s, which no configuration mapping has",
                        DocsLinksTest.ROOT.relativize(page), mention.group()).isPresent();
            }
        }
    }

    private static boolean isGroupOf(String prefix, ConfigKeys.Key key) {
        String[] want = prefix.split("\\.");
        String[] have = key.pattern().split("\\.");
        if (want.length >= have.length) {
            return false;
        }
        for (int i = 0; i < want.length; i++) {
            if (!want[i].equals("*") && !have[i].equals("*") && !want[i].equals(have[i])) {
                return false;
            }
        }
        return true;
    }
}
