/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;

/**
 * The two clients of one set of catalog properties: Slipstream for reads, S3FileIO for the rest.
 *
 * <p>Two lifetimes. A FileIO that a catalog initialized owns its clients and closes them. A copy that
 * came over the wire (Iceberg serializes a table's FileIO into Spark tasks) takes the pair this JVM
 * shares among the copies of the same properties ({@link SharedClients}), which is closed once no copy,
 * file or stream uses it. So an executor has one Slipstream client per catalog configuration in use,
 * whose caches serve all its tasks, and none for credentials that rotated away.
 */
record FileIOClients(Slipstream reader, S3FileIO writer, ReadMetrics metrics) {
  /**
   * New clients, owned by the caller.
   *
   * @throws IllegalArgumentException naming the property whose value is invalid
   */
  static FileIOClients open(Map<String, String> properties) {
    SlipstreamConfig config = CatalogProperties.toConfig(properties); // first: a bad value fails before any client
    S3FileIO writer = new S3FileIO();
    writer.initialize(properties);
    try {
      return new FileIOClients(slipstream(config), writer, ReadMetrics.from(properties));
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
  }

  /**
   * The Slipstream client. Its S3 client is built on the AWS SDK's Apache HTTP client ({@code apache-client},
   * on Apache HttpClient 4.5), which iceberg-aws-bundle carries up to 1.10 and 1.12's does not (it has the
   * Apache 5 one only): where a class of it is missing, the error says which jars to add, not only the
   * class.
   *
   * @throws IllegalStateException if the Apache HTTP client is not on the class path
   */
  private static Slipstream slipstream(SlipstreamConfig config) {
    try {
      return Slipstream.create(config);
    } catch (NoClassDefFoundError e) {
      String missing = String.valueOf(e.getMessage());
      if (!missing.startsWith("software/amazon/awssdk/http/apache/") && !missing.startsWith("org/apache/http/")
          && !missing.startsWith("org/apache/commons/logging/")) {
        throw e;
      }
      throw new IllegalStateException("SlipstreamFileIO cannot build its S3 client, " + e.getMessage()
          + " is missing: it reads through the AWS SDK's Apache HTTP client, which iceberg-aws-bundle 1.12 does"
          + " not carry (it has the Apache 5 one only). Add software.amazon.awssdk:apache-client:" + sdkVersion()
          + " (the bundle's AWS SDK version), org.apache.httpcomponents:httpclient:4.5.13,"
          + " org.apache.httpcomponents:httpcore:4.4.16 and commons-logging:commons-logging:1.2 beside the bundle",
          e);
    }
  }

  /** The version of the AWS SDK on the class path (the bundle's). */
  private static String sdkVersion() {
    try {
      return software.amazon.awssdk.core.util.VersionInfo.SDK_VERSION;
    } catch (LinkageError e) {
      return "<the bundle's AWS SDK version>";
    }
  }

  void close() {
    try {
      reader.close();
    } finally {
      writer.close();
    }
  }
}
