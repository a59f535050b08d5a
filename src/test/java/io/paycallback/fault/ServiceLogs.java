package io.paycallback.fault;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** What the fault tiers read in an instance's console log. */
final class ServiceLogs {

    private static final Pattern STACK_FRAME = Pattern.compile("\\s+at [\\w$./]+\\(");
    private static final Pattern LOG_LINE = Pattern.compile("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} ");

    private ServiceLogs() {
    }

    /**
     * The log line above each stack trace that none of {@code allowed} names. Output that bypassed the logger shows up
     * under whichever line came before it, which is never an allowed one but by chance.
     */
    static Set<String> unexpectedStackTraces(String log, List<String> allowed) {
        Set<String> owners = new LinkedHashSet<>();
        String owner = "(no log line)";
        for (String line : log.split("\n")) {
            if (LOG_LINE.matcher(line).lookingAt()) {
                owner = line;
            } else if (STACK_FRAME.matcher(line).lookingAt() && allowed.stream().noneMatch(owner::contains)) {
                owners.add(owner.length() > 300 ? owner.substring(0, 300) : owner);
            }
        }
        return owners;
    }
}
