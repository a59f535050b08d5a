package io.paycallback.ops;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.paycallback.console.ConsoleLogin;
import io.paycallback.ops.OperatorAction.Offers;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operator action is offered by the admin API and by the console alike: each endpoint names the actions it
 * renders, and both sets are the whole of {@link OperatorAction}. An operator endpoint that names none fails too, so a
 * new one cannot slip past the list.
 */
class OperatorActionParityTest {

    private static JavaClasses classes;

    @BeforeAll
    static void read() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.paycallback.api", "io.paycallback.console");
    }

    @Test
    void theApiOffersEveryAction() {
        assertThat(offered("io.paycallback.api")).isEqualTo(EnumSet.allOf(OperatorAction.class));
    }

    @Test
    void theConsoleOffersEveryAction() {
        assertThat(offered("io.paycallback.console")).isEqualTo(EnumSet.allOf(OperatorAction.class));
    }

    @Test
    void everyOperatorEndpointNamesTheActionsItRenders() {
        List<String> unnamed = new ArrayList<>();
        for (JavaClass resource : classes) {
            if (!resource.isAnnotatedWith(Path.class) || resource.isEquivalentTo(ConsoleLogin.class)) {
                continue;
            }
            String base = resource.getAnnotationOfType(Path.class).value();
            if (!base.startsWith("/admin")) {
                continue;
            }
            for (JavaMethod method : endpoints(resource)) {
                if (!method.isAnnotatedWith(Offers.class)) {
                    unnamed.add(resource.getSimpleName() + "." + method.getName());
                }
            }
        }
        assertThat(unnamed).as("operator endpoints without @Offers").isEmpty();
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
                .filter(method -> method.isAnnotatedWith(GET.class) || method.isAnnotatedWith(POST.class)
                        || method.isAnnotatedWith(PUT.class) || method.isAnnotatedWith(DELETE.class)).toList();
    }
}
