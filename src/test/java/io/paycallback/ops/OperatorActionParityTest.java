package io.paycallback.ops;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.paycallback.console.ConsoleLogin;
import io.paycallback.console.ProviderSignIn;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.OperatorAction.Performs;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operator action is offered by the admin API and by the console alike, and held by calls, not by labels: each
 * action is the one method of {@code ops} marked {@link Performs} with it, and every endpoint of either edge calls the
 * method of each action it names with {@link Offers} and no method of an action it does not name. So the two edges
 * cannot reach different methods, or different defaults (which the method applies), for the same action.
 */
class OperatorActionParityTest {

    private static final String API = "io.paycallback.api";
    private static final String CONSOLE = "io.paycallback.console";
    private static final String OPS = "io.paycallback.ops";

    private static JavaClasses classes;

    @BeforeAll
    static void read() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(API, CONSOLE, OPS);
    }

    @Test
    void everyActionIsOneMethodOfOps() {
        Map<OperatorAction, List<String>> performers = new EnumMap<>(OperatorAction.class);
        for (JavaMethod method : performers()) {
            performers.computeIfAbsent(method.getAnnotationOfType(Performs.class).value(), action -> new ArrayList<>())
                    .add(method.getFullName());
        }
        assertThat(performers.keySet()).as("actions with a method").isEqualTo(EnumSet.allOf(OperatorAction.class));
        assertThat(performers.values()).as("one method each").allSatisfy(methods -> assertThat(methods).hasSize(1));
    }

    @Test
    void theApiOffersEveryAction() {
        assertThat(offered(API)).isEqualTo(EnumSet.allOf(OperatorAction.class));
    }

    @Test
    void theConsoleOffersEveryAction() {
        assertThat(offered(CONSOLE)).isEqualTo(EnumSet.allOf(OperatorAction.class));
    }

    @Test
    void everyOperatorEndpointNamesTheActionsItRenders() {
        List<String> unnamed = new ArrayList<>();
        for (JavaMethod endpoint : operatorEndpoints()) {
            if (!endpoint.isAnnotatedWith(Offers.class)) {
                unnamed.add(endpoint.getOwner().getSimpleName() + "." + endpoint.getName());
            }
        }
        assertThat(unnamed).as("operator endpoints without @Offers").isEmpty();
    }

    @Test
    void everyEndpointCallsTheMethodOfEachActionItOffersAndOfNoOther() {
        Map<OperatorAction, JavaMethod> performerOf = new EnumMap<>(OperatorAction.class);
        performers().forEach(method -> performerOf.put(method.getAnnotationOfType(Performs.class).value(), method));
        List<String> drift = new ArrayList<>();
        List<JavaMethod> offering = classes.stream().filter(type -> !type.getPackageName().equals(OPS))
                .flatMap(type -> endpoints(type).stream()).filter(method -> method.isAnnotatedWith(Offers.class)).toList();
        for (JavaMethod endpoint : offering) {
            Set<OperatorAction> offers = EnumSet.noneOf(OperatorAction.class);
            offers.addAll(Arrays.asList(endpoint.getAnnotationOfType(Offers.class).value()));
            Set<JavaMethod> reached = opsMethodsReachedFrom(endpoint);
            String name = endpoint.getOwner().getSimpleName() + "." + endpoint.getName();
            for (OperatorAction action : offers) {
                JavaMethod performer = performerOf.get(action);
                if (performer != null && !reached.contains(performer)) {
                    drift.add(name + " offers " + action + " but does not call " + performer.getFullName());
                }
            }
            for (JavaMethod method : reached) {
                if (method.isAnnotatedWith(Performs.class)
                        && !offers.contains(method.getAnnotationOfType(Performs.class).value())) {
                    drift.add(name + " calls " + method.getFullName() + " but does not offer "
                            + method.getAnnotationOfType(Performs.class).value());
                }
            }
        }
        assertThat(drift).isEmpty();
    }

    /**
     * The methods of {@code ops} an endpoint calls, itself or through the code of its edge it calls (helpers, lambdas,
     * method references), so a call moved into a helper still counts.
     */
    private static Set<JavaMethod> opsMethodsReachedFrom(JavaMethod endpoint) {
        Set<JavaMethod> reached = new LinkedHashSet<>();
        Set<JavaCodeUnit> seen = new HashSet<>();
        Deque<JavaCodeUnit> next = new ArrayDeque<>(List.of(endpoint));
        while (!next.isEmpty()) {
            JavaCodeUnit unit = next.pop();
            if (!seen.add(unit)) {
                continue;
            }
            Stream.concat(unit.getMethodCallsFromSelf().stream(), unit.getMethodReferencesFromSelf().stream())
                    .map(JavaAccess::getTarget)
                    .map(AccessTarget.CodeUnitAccessTarget::resolveMember)
                    .flatMap(Optional::stream)
                    .forEach(target -> {
                        String pkg = target.getOwner().getPackageName();
                        if (pkg.equals(OPS) && target instanceof JavaMethod method) {
                            reached.add(method);
                        } else if (pkg.equals(API) || pkg.equals(CONSOLE)) {
                            next.push(target);
                        }
                    });
        }
        return reached;
    }

    private static List<JavaMethod> performers() {
        return classes.stream().filter(type -> type.getPackageName().equals(OPS))
                .flatMap(type -> type.getMethods().stream())
                .filter(method -> method.isAnnotatedWith(Performs.class)).toList();
    }

    private static List<JavaMethod> operatorEndpoints() {
        List<JavaMethod> endpoints = new ArrayList<>();
        for (JavaClass resource : classes) {
            // Signing in and out is no operator action.
            if (!resource.isAnnotatedWith(Path.class) || resource.isEquivalentTo(ConsoleLogin.class)
                    || resource.isEquivalentTo(ProviderSignIn.class) || !resource.getAnnotationOfType(Path.class).value().startsWith("/admin")) {
                continue;
            }
            endpoints.addAll(endpoints(resource));
        }
        return endpoints;
    }

    private static Set<OperatorAction> offered(String pkg) {
        Set<OperatorAction> actions = EnumSet.noneOf(OperatorAction.class);
        for (JavaClass resource : classes) {
            if (!resource.getPackageName().equals(pkg)) {
                continue;
            }
            for (JavaMethod method : endpoints(resource)) {
                if (method.isAnnotatedWith(Offers.class)) {
                    actions.addAll(Arrays.asList(method.getAnnotationOfType(Offers.class).value()));
                }
            }
        }
        return actions;
    }

    private static List<JavaMethod> endpoints(JavaClass resource) {
        return resource.getMethods().stream()
                .filter(method -> Stream.of(GET.class, POST.class, PUT.class, DELETE.class).anyMatch(method::isAnnotatedWith)).toList();
    }
}
