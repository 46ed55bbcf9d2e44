/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.metrics.CoreMetric;
import software.amazon.awssdk.http.HttpMetric;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.metrics.MetricCollection;
import software.amazon.awssdk.metrics.MetricCollector;
import software.amazon.awssdk.metrics.MetricPublisher;

/**
 * S3A's request statistics of the read path's GETs, told to S3A's metric publisher without the SDK's
 * metric collection.
 *
 * <p>A client with a metric publisher has the SDK time and record some twenty metrics of every request,
 * stage by stage, and build a tree of them; S3A's publisher counts from two: the retry count (a request,
 * and its retries) and the status (a {@code 429} is a throttle); the durations it is handed it drops
 * (Hadoop 3.4 and 3.5). On the read path's client that work was a tenth of the declared read's CPU
 * (docs/benchmarks.md). Where every publisher of S3A's client is S3A's own, the read path's client has
 * none, and this interceptor hands S3A's the same two, once per request: no retry (the client makes one
 * attempt; the read path's retries are requests of their own) and the response's status, if one came. A
 * publisher of anyone else's keeps the SDK's metrics as they were.
 */
final class S3ARequestStatistics implements ExecutionInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(HadoopConfig.LOGGER);
  private final List<MetricPublisher> publishers;

  S3ARequestStatistics(List<MetricPublisher> publishers) {
    this.publishers = List.copyOf(publishers);
  }

  /** Whether {@code publishers}, S3A's client's, are S3A's own: then this interceptor can stand for them. */
  static boolean replaces(List<MetricPublisher> publishers) {
    return !publishers.isEmpty() && publishers.stream().allMatch(S3AReadsClient::isS3As);
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    publish(context.httpResponse().statusCode());
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    publish(context.httpResponse().map(SdkHttpResponse::statusCode).orElse(-1));
  }

  private void publish(int status) {
    MetricCollector call = MetricCollector.create("ApiCall");
    call.reportMetric(CoreMetric.RETRY_COUNT, 0);
    if (status >= 0) {
      call.reportMetric(HttpMetric.HTTP_STATUS_CODE, status);
    }
    MetricCollection metrics = call.collect();
    for (MetricPublisher p : publishers) {
      try {
        p.publish(metrics);
      } catch (RuntimeException e) {
        // as the SDK does: statistics never fail a request
        LOG.debug("S3A's metric publisher failed: {}", e.toString());
      }
    }
  }
}
