/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import java.util.Map;
import org.apache.iceberg.io.FileIOMetricsContext;
import org.apache.iceberg.metrics.Counter;
import org.apache.iceberg.metrics.MetricsContext;

/**
 * The FileIO's read counters, in Iceberg's metrics: bytes read and read calls, as S3FileIO counts them.
 *
 * <p>Where Hadoop is on the class path they go to Iceberg's {@code HadoopMetricsContext}, which adds them
 * to Hadoop's {@code FileSystem.Statistics} for the scheme {@code s3}: that is where Spark's task input
 * metrics (the UI's "input" bytes) come from, as for S3FileIO. Elsewhere they are Iceberg's null metrics.
 */
record ReadMetrics(Counter readBytes, Counter readOperations) {
  private static final String HADOOP_METRICS = "org.apache.iceberg.hadoop.HadoopMetricsContext";

  static ReadMetrics from(Map<String, String> properties) {
    MetricsContext context = hadoopMetrics(properties);
    return new ReadMetrics(context.counter(FileIOMetricsContext.READ_BYTES, MetricsContext.Unit.BYTES),
        context.counter(FileIOMetricsContext.READ_OPERATIONS, MetricsContext.Unit.COUNT));
  }

  private static MetricsContext hadoopMetrics(Map<String, String> properties) {
    try {
      MetricsContext context = (MetricsContext) Class.forName(HADOOP_METRICS, true, ReadMetrics.class.getClassLoader())
          .getConstructor(String.class).newInstance("s3");
      context.initialize(properties);
      return context;
    } catch (ReflectiveOperationException | LinkageError | RuntimeException noHadoop) {
      return MetricsContext.nullMetrics();
    }
  }
}
