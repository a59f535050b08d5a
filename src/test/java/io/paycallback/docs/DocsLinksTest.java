package io.paycallback.docs;

import io.paycallback.testsupport.Markdown;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and every page under docs/: each relative link reaches a file of this repository, and a link with an
 * anchor reaches a heading of that file; no page names a path that climbs out of the repository; every page is linked
 * from the README; every picture is a Mermaid diagram GitHub can render.
 */
class DocsLinksTest {

    /** Surefire runs in the module directory. */
    static final Path ROOT = Path.of(System.getProperty("user.dir"));

    /** A path going up, wherever it is written (link, code, table); {@code .../x} is an ellipsis, not a path. */
    private static final Pattern CLIMBING_PATH = Pattern.compile("(?<![\\w./-])(?:\\.\\./)+[^\\s)`'\"<>\\]|,;]*");

    static List<Path> pages() {
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            return Stream.concat(Stream.of(ROOT.resolve("README.md")),
                    docs.filter(path -> path.toString().endsWith(".md")).sorted()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @MethodSource("pages")
    void everyRelativeLinkReachesAFileAndItsHeading(Path page) {
        Markdown markdown = Markdown.read(page);
        for (Markdown.Link link : markdown.links()) {
            String target = link.target();
            if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                continue;
            }
            String where = ROOT.relativize(page) + ":" + link.line() + " " + target;
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
            assertThat(resolved).as("%s leaves the repository", where).startsWithRaw(ROOT);
            assertThat(resolved).as("%s: no such file", where).exists();
            if (hash >= 0) {
                assertThat(resolved.toString()).as("%s: an anchor needs a Markdown page", where).endsWith(".md");
                assertThat(Markdown.read(resolved).anchors()).as("%s: no such heading", where)
                        .contains(target.substring(hash + 1));
            }
        }
    }

    /**
     * A page read from a clone alone must not lean on a file beside the clone: every path going up, linked or only
     * named, resolves (from the page, as a link does) to a file of this repository.
     */
    @ParameterizedTest
    @MethodSource("pages")
    void everyPathGoingUpStaysInTheRepository(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page);
        for (int i = 0; i < lines.size(); i++) {
            Matcher path = CLIMBING_PATH.matcher(lines.get(i));
            while (path.find()) {
                String written = path.group().replaceFirst("#.*", "").replaceFirst("[.:]+$", "");
                Path resolved = page.getParent().resolve(written).normalize();
                String where = ROOT.relativize(page) + ":" + (i + 1) + " " + path.group();
                assertThat(resolved).as("%s leaves the repository", where).startsWithRaw(ROOT);
                assertThat(resolved).as("%s: no such file in this repository", where).exists();
            }
        }
    }

    @Test
    void theReadmeLinksEveryPageOfDocs() {
        Set<String> linked = Markdown.read(ROOT.resolve("README.md")).links().stream()
                .map(link -> link.target().replaceFirst("#.*", ""))
                .collect(Collectors.toSet());
        for (Path page : pages().subList(1, pages().size())) {
            assertThat(linked).as("README.md links %s", ROOT.relativize(page)).contains(ROOT.relativize(page).toString());
        }
    }

    @Test
    void theReadmeShowsBothCommandsAndTheFlowOnItsFirstScreen() {
        List<String> firstScreen;
        try (Stream<String> lines = Files.lines(ROOT.resolve("README.md"))) {
            firstScreen = lines.limit(50).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(firstScreen).anyMatch(line -> line.startsWith("./mvnw -B verify"));
        assertThat(firstScreen).anyMatch(line -> line.startsWith("./mvnw quarkus:dev"));
        assertThat(firstScreen).anyMatch(line -> line.startsWith("java deploy/dev/SendSample.java"));
        assertThat(firstScreen).contains("```mermaid");
    }

    /** GitHub renders a Mermaid block only when its first line names a diagram type; anything else shows as an error. */
    @ParameterizedTest
    @MethodSource("pages")
    void everyPictureIsAMermaidDiagramOfAKnownType(Path page) {
        for (String block : Markdown.read(page).mermaidBlocks()) {
            String first = block.lines().map(String::strip).filter(line -> !line.isEmpty()).findFirst().orElse("");
            assertThat(first).as("%s: a Mermaid block starts with its diagram type", ROOT.relativize(page))
                    .matches("(flowchart (LR|RL|TB|TD|BT)|sequenceDiagram|stateDiagram-v2|graph (LR|TB|TD))");
        }
    }
}
