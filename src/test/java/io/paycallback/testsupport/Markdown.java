package io.paycallback.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The parts of a Markdown page that links depend on: its headings' anchors and its own links, outside code. */
public final class Markdown {

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

    /** A link of a page: its target as written, and the line it stands on. */
    public record Link(String target, int line) {
    }

    private final List<String> lines;

    private Markdown(List<String> lines) {
        this.lines = lines;
    }

    public static Markdown read(Path file) {
        try {
            return new Markdown(Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
    }

    /** The lines that are prose: fenced code blocks left out, each kept line with its 1-based number. */
    private Map<Integer, String> prose() {
        Map<Integer, String> prose = new LinkedHashMap<>();
        boolean inFence = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            if (!inFence) {
                prose.put(i + 1, line);
            }
        }
        return prose;
    }

    /**
     * The anchors GitHub gives the headings: the text without its Markdown, lower case, every character but letters,
     * digits, spaces, hyphens and underscores dropped, spaces as hyphens; a repeated anchor gets {@code -1},
     * {@code -2}, ...
     */
    public List<String> anchors() {
        List<String> anchors = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose().values()) {
            Matcher heading = HEADING.matcher(line);
            if (!heading.matches()) {
                continue;
            }
            String anchor = anchor(heading.group(1));
            int count = seen.merge(anchor, 1, Integer::sum);
            anchors.add(count == 1 ? anchor : anchor + "-" + (count - 1));
        }
        return anchors;
    }

    static String anchor(String headingText) {
        String text = LINK.matcher(headingText).replaceAll("$1");
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }

    /** Every link outside code, in the order written. */
    public List<Link> links() {
        List<Link> links = new ArrayList<>();
        prose().forEach((number, line) -> {
            Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (link.find()) {
                links.add(new Link(link.group(2), number));
            }
        });
        return links;
    }

    /** The bodies of the page's {@code ```mermaid} blocks. */
    public List<String> mermaidBlocks() {
        List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (String line : lines) {
            if (block == null && line.strip().equals("```mermaid")) {
                block = new StringBuilder();
            } else if (block != null && line.strip().equals("```")) {
                blocks.add(block.toString());
                block = null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        return blocks;
    }
}
