/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.spark;

import dev.slipstream.ReadStatistics;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Slipstream's counters and latency percentiles in Spark's metrics system:
 * {@code spark.plugins=dev.slipstream.spark.SlipstreamPlugin}. The driver and every executor register
 * the numbers of their own JVM ({@link ReadStatistics#global()}) as gauges of the plugin's metric source,
 * so the sinks configured for Spark (its Prometheus servlet, JMX, CSV, Graphite) show them beside Spark's
 * own. The names are listed in {@link SlipstreamGauges}.
 *
 * <p>In local mode the executor runs in the driver's JVM and shares its metrics system: the driver's
 * gauges then cover both, and the executor part registers nothing.
 */
public final class SlipstreamPlugin implements SparkPlugin {
  /** The executor id Spark gives the driver, and the executor of local mode. */
  static final String DRIVER_ID = "driver";

  @Override
  public DriverPlugin driverPlugin() {
    return new DriverPlugin() {
      @Override
      public Map<String, String> init(SparkContext sc, PluginContext ctx) {
        SlipstreamGauges.register(ctx.metricRegistry(), ReadStatistics.global());
        return Map.of();
      }
    };
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new ExecutorPlugin() {
      @Override
      public void init(PluginContext ctx, Map<String, String> extraConf) {
        if (!DRIVER_ID.equals(ctx.executorID())) {
          SlipstreamGauges.register(ctx.metricRegistry(), ReadStatistics.global());
        }
      }
    };
  }
}
