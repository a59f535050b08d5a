package io.paycallback.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;

import java.util.List;

/** The console's pages and fragments ({@code templates/console/}), checked against their parameters at build time. */
@CheckedTemplate(basePath = "console")
public class Templates {

    private Templates() {
    }

    /** @param provider the identity provider's name for its sign-in button, null when none is configured */
    public static native TemplateInstance login(String error, String provider);

    /** @param next the console's first page for this person: a scoped one starts at the search */
    public static native TemplateInstance signedIn(String operator, String next);

    public static native TemplateInstance overview(ConsoleViews.Page page, ConsoleViews.Overview overview);

    public static native TemplateInstance trends(ConsoleViews.TrendCharts trends);

    public static native TemplateInstance search(ConsoleViews.Page page, String by, String merchant, String q,
                                                 List<String> matches, ConsoleViews.Timeline timeline);

    public static native TemplateInstance body(String body);

    public static native TemplateInstance attempts(List<ConsoleViews.AttemptLine> attempts);

    public static native TemplateInstance deadLetters(ConsoleViews.Page page, String table, List<String> tables,
                                                      List<ConsoleViews.CallbackLine> callbacks,
                                                      List<ConsoleViews.EventLine> events,
                                                      List<ConsoleViews.DeadLine> rows);

    public static native TemplateInstance quarantine(ConsoleViews.Page page, List<ConsoleViews.QuarantineLine> rows);

    public static native TemplateInstance bulk(ConsoleViews.Page page, List<String> tables);

    public static native TemplateInstance dryRun(ConsoleViews.DryRun dryRun);

    public static native TemplateInstance audit(ConsoleViews.Page page, List<ConsoleViews.AuditLine> entries, Long olderThan);

    public static native TemplateInstance statements(ConsoleViews.Page page, ConsoleViews.StatementFilter filter,
                                                     List<ConsoleViews.RunLine> runs,
                                                     List<ConsoleViews.DiscrepancyLine> discrepancies);

    public static native TemplateInstance destinations(ConsoleViews.Page page, List<ConsoleViews.DestinationLine> rows);

    public static native TemplateInstance merchants(ConsoleViews.Page page, List<ConsoleViews.OwnerLine> owners);

    public static native TemplateInstance merchant(ConsoleViews.Page page, ConsoleViews.OwnerPage view);

    public static native TemplateInstance apiKeys(ConsoleViews.Page page, List<ApiKeysPage.KeyLine> keys);

    public static native TemplateInstance apiKeyMade(String prefix, String token, String summary);

    public static native TemplateInstance replayPlan(ConsoleViews.ReplayPlan plan);

    public static native TemplateInstance done(ConsoleViews.Done done);
}
