package io.paycallback.docs;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table "Packages and what each may import" of docs/architecture.md, held against the compiled classes: every
 * dependency of a class of ours on another of ours must be one the table allows its package. The table is the rule;
 * changing what a package imports means changing the table with it.
 */
class PackageRulesTest {

    private static final String ROOT = "io.paycallback";
    private static final Path PAGE = Path.of("docs/architecture.md");
    private static final String SECTION = "## Packages and what each may import";
    private static final Pattern CODE = Pattern.compile("`([a-z/]+)`");
    private static final String VALUES_ONLY = "values only:";

    /** One row: the package, what it may use of others whole, and of which others only values. */
    record Rule(String pkg, Set<String> imports, Set<String> valuesOnly) {
    }

    private static Map<String, Rule> rules;
    private static JavaClasses ours;

    @BeforeAll
    static void read() throws IOException {
        rules = table(Files.readAllLines(PAGE));
        ours = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(ROOT);
    }

    @Test
    void everyPackageOfTheCodeHasARowAndEveryRowAPackage() {
        Set<String> packages = ours.stream().map(PackageRulesTest::relative).filter(pkg -> !pkg.isEmpty())
                .map(PackageRulesTest::owner).collect(Collectors.toCollection(TreeSet::new));
        assertThat(packages).as("packages of src/main without a row in " + PAGE).isSubsetOf(rules.keySet());
        assertThat(rules.keySet()).as("rows of " + PAGE + " without a package").isSubsetOf(packages);
    }

    @Test
    void everyRowNamesOnlyPackagesThatHaveRows() {
        rules.values().forEach(rule -> {
            assertThat(rule.imports()).as(rule.pkg()).isSubsetOf(rules.keySet());
            assertThat(rule.valuesOnly()).as(rule.pkg()).isSubsetOf(rules.keySet());
        });
    }

    @Test
    void everyClassDependsOnlyOnWhatItsPackageMayImport() {
        List<String> violations = new ArrayList<>();
        for (Rule rule : rules.values()) {
            EvaluationResult result = rule(rule).evaluate(ours);
            violations.addAll(result.getFailureReport().getDetails());
        }
        assertThat(violations).as("dependencies that docs/architecture.md does not allow").isEmpty();
    }

    /** The rule of one row, as ArchUnit states it in a failure. */
    static ArchRule rule(Rule rule) {
        DescribedPredicate<JavaClass> inPackage = DescribedPredicate.describe("of package " + rule.pkg(),
                type -> owner(relative(type)).equals(rule.pkg()));
        DescribedPredicate<JavaClass> allowed = DescribedPredicate.describe(
                "outside " + ROOT + ", or in " + rule.pkg() + ", or in " + rule.imports()
                        + (rule.valuesOnly().isEmpty() ? "" : ", or values (records, enums, sealed interfaces) of " + rule.valuesOnly()),
                type -> allows(rule, type));
        return classes().that(inPackage).should().onlyDependOnClassesThat(allowed).allowEmptyShould(true);
    }

    private static boolean allows(Rule rule, JavaClass target) {
        JavaClass type = target.isArray() ? target.getBaseComponentType() : target;
        if (!type.getPackageName().equals(ROOT) && !type.getPackageName().startsWith(ROOT + ".")) {
            return true;
        }
        String pkg = owner(relative(type));
        if (pkg.equals(rule.pkg()) || rule.imports().contains(pkg)) {
            return true;
        }
        return rule.valuesOnly().contains(pkg) && (type.isRecord() || type.isEnum() || type.reflect().isSealed());
    }

    /** The package below {@value #ROOT}, with '/' between its parts as the table writes it. */
    private static String relative(JavaClass type) {
        String name = type.getPackageName();
        return name.length() <= ROOT.length() ? "" : name.substring(ROOT.length() + 1).replace('.', '/');
    }

    /** The row a package falls under: its own, or that of the nearest package above it that has one. */
    private static String owner(String pkg) {
        Optional<String> row = rules.keySet().stream().filter(name -> pkg.equals(name) || pkg.startsWith(name + "/"))
                .max(Comparator.comparingInt(String::length));
        return row.orElse(pkg.contains("/") ? pkg.substring(0, pkg.indexOf('/')) : pkg);
    }

    static Map<String, Rule> table(List<String> lines) {
        Map<String, Rule> table = new LinkedHashMap<>();
        boolean inSection = false;
        for (String line : lines) {
            if (line.startsWith("## ")) {
                inSection = line.equals(SECTION);
                continue;
            }
            if (!inSection || !line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            String pkg = codes(cells[1]).get(0);
            String mayImport = cells[cells.length - 1];
            int split = mayImport.indexOf(VALUES_ONLY);
            Set<String> whole = new TreeSet<>(codes(split < 0 ? mayImport : mayImport.substring(0, split)));
            Set<String> values = new TreeSet<>(split < 0 ? List.of() : codes(mayImport.substring(split)));
            table.put(pkg, new Rule(pkg, whole, values));
        }
        assertThat(table).as("the rows of " + SECTION).isNotEmpty();
        return table;
    }

    private static List<String> codes(String cell) {
        List<String> names = new ArrayList<>();
        Matcher matcher = CODE.matcher(cell);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }
}
