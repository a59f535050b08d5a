package io.paycallback.statement;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;

/** The daily statement reconciliation: each provider's bill compared with the ledger. */
@ConfigMapping(prefix = "paycallback.statements")
public interface StatementConfig {

    /**
     * How long a payment or refund we hold may go unlisted by the provider's bills before it is a discrepancy:
     * providers book around midnight by their own clock, so a neighbouring day's bill may list it.
     */
    @WithDefault("2d")
    Duration crossDayWindow();

    /** How soon a bill the provider is still making (WeChat Pay STATEMENT_CREATING) is asked for again. */
    @WithDefault("30m")
    Duration creatingRetry();

    /** Bill lines per multi-row INSERT while a bill streams into the staging table. */
    @WithDefault("500")
    int insertBatch();

    /** When yesterday's WeChat Pay runs are enrolled, a Quartz cron in Asia/Shanghai (bills exist from ~10:00). */
    @WithName("wxpay.cron")
    @WithDefault("0 30 10 * * ?")
    String wxpayCron();

    /** When yesterday's Alipay runs are enrolled, a Quartz cron in Asia/Shanghai. */
    @WithName("alipay.cron")
    @WithDefault("0 30 10 * * ?")
    String alipayCron();

    /** When yesterday's Stripe runs are enrolled, a Quartz cron in UTC (Stripe's days are UTC days). */
    @WithName("stripe.cron")
    @WithDefault("0 0 2 * * ?")
    String stripeCron();
}
