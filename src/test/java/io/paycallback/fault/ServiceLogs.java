package io.paycallback.fault;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** What the fault tiers read in an instance's console log. */
final class ServiceLogs {

    private static final Pattern STACK_FRAME = Pattern.compile("\\s+at [\\w$./]+\\(");
    private static final Pattern LOG_LINE = Pattern.compile("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} ");

    private ServiceLogs() {
    }

    /**
     * What an instance logged during one scenario holds no uncaught exception, no stack trace under a line none of
     * {@code allowedTraces} names, and none of {@code secrets}.
     */
    static void assertClean(String instance, String log, List<String> allowedTraces, List<String> secrets) {
        assertThat(log).as(instance).doesNotContain("Uncaught exception").doesNotContain("Result is already complete");
        assertThat(unexpectedStackTraces(log, allowedTraces)).as(instance + ": stack traces under these lines").isEmpty();
        assertThat(log).as(instance).doesNotContain(secrets);
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
