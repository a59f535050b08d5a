package io.paycallback.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Migrations land in the order of their versions: one that lands after a higher version would make every database
 * migrated in between refuse it at the next start (Flyway: "resolved migration not applied"), or, with out-of-order
 * migrations allowed as they are here, run after migrations that were written later than it. The order of landing is
 * read from git history (first the commit that added each file, then files not committed yet); without a git checkout
 * there is no history to check.
 */
class MigrationOrderTest {

    private static final Path MIGRATIONS = Path.of("src/main/resources/db/migration");
    private static final Pattern VERSION = Pattern.compile("V(\\d+)__.+\\.sql");
    /**
     * The rule holds from the landing of this version on. Before it, V10 landed after V11; databases migrated in
     * between get V10 applied out of order ({@code quarkus.flyway.out-of-order}).
     */
    private static final int RULE_SINCE = 12;

    @Test
    void everyMigrationLandsAfterEveryLowerVersion() throws Exception {
        List<Integer> landed = landingOrder();
        int since = landed.indexOf(RULE_SINCE);
        assertThat(since).as("V" + RULE_SINCE + " has landed").isNotNegative();
        List<String> late = new ArrayList<>();
        int highest = 0;
        for (int i = 0; i < landed.size(); i++) {
            int version = landed.get(i);
            if (i >= since && version < highest) {
                late.add("V" + version + " landed after V" + highest);
            }
            highest = Math.max(highest, version);
        }
        assertThat(late).as("migrations that landed after a higher version: renumber them above V" + highest).isEmpty();
    }

    /**
     * Flyway also takes dotted versions (V10_1, V10.1), which the landing order above cannot see: one can land below a
     * deployed release's highest version unnoticed (a rollback to that release then fails Flyway's validation at start,
     * "applied migration not resolved locally"), and SchemaCompatibilityCheck cannot read it, so the start fails here too.
     */
    @Test
    void everyMigrationIsVersionedByAWholeNumber() throws IOException {
        try (Stream<Path> paths = Files.list(MIGRATIONS)) {
            assertThat(paths.map(path -> path.getFileName().toString()).filter(name -> !VERSION.matcher(name).matches()))
                    .as("files in " + MIGRATIONS + " not named V<whole number>__<description>.sql").isEmpty();
        }
    }

    @Test
    void versionsAreUnique() throws IOException {
        List<Integer> versions = new ArrayList<>(files().keySet().stream().map(MigrationOrderTest::version).toList());
        assertThat(versions).doesNotHaveDuplicates();
    }

    /** The versions in the order they landed: committed ones by their adding commit, then uncommitted ones by number. */
    private static List<Integer> landingOrder() throws IOException, InterruptedException {
        assumeTrue(Files.isDirectory(Path.of(".git")) || Files.isRegularFile(Path.of(".git")), "not a git checkout");
        // A migration renumbered before it landed (V13 to V14) was renamed: without --no-renames it would never show
        // as added, and would count as landing after every migration added since.
        Process git = new ProcessBuilder("git", "log", "--reverse", "--no-renames", "--diff-filter=A", "--format=",
                "--name-only", "--", MIGRATIONS.toString()).redirectErrorStream(true).start();
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(git.waitFor(60, TimeUnit.SECONDS) && git.exitValue() == 0, "git history not readable: " + out);
        Map<String, Integer> order = new LinkedHashMap<>();
        Map<String, Path> present = files();
        out.lines().map(line -> Path.of(line).getFileName().toString()).filter(present::containsKey)
                .forEach(name -> order.putIfAbsent(name, version(name)));
        present.keySet().stream().sorted((a, b) -> Integer.compare(version(a), version(b)))
                .forEach(name -> order.putIfAbsent(name, version(name)));
        return List.copyOf(order.values());
    }

    private static Map<String, Path> files() throws IOException {
        Map<String, Path> files = new LinkedHashMap<>();
        try (Stream<Path> paths = Files.list(MIGRATIONS)) {
            paths.filter(path -> VERSION.matcher(path.getFileName().toString()).matches())
                    .forEach(path -> files.put(path.getFileName().toString(), path));
        }
        return files;
    }

    private static int version(String name) {
        Matcher matcher = VERSION.matcher(name);
        if (!matcher.matches()) {
            throw new IllegalArgumentException(name);
        }
        return Integer.parseInt(matcher.group(1));
    }
}
