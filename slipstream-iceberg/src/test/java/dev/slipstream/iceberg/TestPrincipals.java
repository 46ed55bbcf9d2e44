/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * A credentials provider for {@code client.credentials-provider}, as Iceberg loads one (its static
 * {@code create(Map)} gets the {@code client.credentials-provider.*} properties): each instance answers as
 * the principal its {@code name} stands for in {@link #PRINCIPALS} at the time of the request, so a test
 * can rotate the principal under a client, as refreshed credentials do. The access key id is the
 * principal's name, which is how the scripted store tells principals apart.
 */
public final class TestPrincipals implements AwsCredentialsProvider {
  /** Provider name to the principal it answers as now. */
  static final Map<String, String> PRINCIPALS = new ConcurrentHashMap<>();

  private final String name;

  private TestPrincipals(String name) {
    this.name = name;
  }

  public static TestPrincipals create(Map<String, String> properties) {
    return new TestPrincipals(properties.get("name"));
  }

  @Override
  public AwsCredentials resolveCredentials() {
    String principal = PRINCIPALS.get(name);
    if (principal == null) {
      throw new IllegalStateException("no principal for " + name);
    }
    return AwsBasicCredentials.create(principal, principal + "-secret");
  }
}
