/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The versions of what a run compares, as this build has them on its classpath: Slipstream, Hadoop (S3A is
 * its hadoop-aws, the same release), the analytics stream (the AWS Analytics Accelerator Library), the AWS
 * SDK and parquet-java. A version is read from the jar's manifest or, failing that, from the jar's file name.
 */
final class Versions {
  static final String SLIPSTREAM = "Slipstream";
  static final String HADOOP = "Hadoop (S3A)";
  static final String ANALYTICS = "analytics stream (AWS Analytics Accelerator Library)";
  static final String AWS_SDK = "AWS SDK for Java";
  static final String PARQUET = "parquet-java";

  private static final Pattern JAR_VERSION = Pattern.compile("-(\\d[\\w.-]*?)\\.jar$");

  private Versions() {}

  /** Name to version, in report order; "unknown" when a version cannot be found. */
  static Map<String, String> ofThisBuild() {
    Map<String, String> v = new LinkedHashMap<>();
    v.put(SLIPSTREAM, slipstream());
    v.put(HADOOP, of("org.apache.hadoop.fs.s3a.S3AFileSystem"));
    v.put(ANALYTICS, of("software.amazon.s3.analyticsaccelerator.S3SeekableInputStreamFactory"));
    v.put(AWS_SDK, of("software.amazon.awssdk.services.s3.S3Client"));
    v.put(PARQUET, of("org.apache.parquet.hadoop.ParquetFileReader"));
    return v;
  }

  private static String slipstream() {
    Properties p = new Properties();
    try (InputStream in = Versions.class.getResourceAsStream("bench.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    return p.getProperty("version", "unknown");
  }

  private static String of(String className) {
    try {
      Class<?> c = Class.forName(className, false, Versions.class.getClassLoader());
      Package pkg = c.getPackage();
      if (pkg != null && pkg.getImplementationVersion() != null) {
        return pkg.getImplementationVersion();
      }
      var source = c.getProtectionDomain().getCodeSource();
      if (source != null && source.getLocation() != null) {
        Matcher m = JAR_VERSION.matcher(source.getLocation().getPath());
        if (m.find()) {
          return m.group(1);
        }
      }
    } catch (ClassNotFoundException | LinkageError | SecurityException e) {
      // not on the classpath
    }
    return "unknown";
  }
}
