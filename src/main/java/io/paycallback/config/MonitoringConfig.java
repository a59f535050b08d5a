package io.paycallback.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * How often gauges are recounted: read by the schedules of ops (backlog, dead letters, quarantine), delivery
 * (destinations) and statement alike, so it is shared here. The backlog's threshold is ops' own.
 */
@ConfigMapping(prefix = "paycallback.monitoring")
public interface MonitoringConfig {

    /** How often the backlog, dead-letter and quarantine gauges are recounted. */
    @WithDefault("30s")
    Duration gaugeInterval();
}
