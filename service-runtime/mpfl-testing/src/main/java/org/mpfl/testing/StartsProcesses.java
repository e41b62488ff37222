package org.mpfl.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class (or method) that starts something outside the test JVM: a service-host or
 * {@code mpflc} child JVM (also through {@code LocalCluster} or {@code HostProcesses}), Tomcat,
 * PostgreSQL, Slurm, a browser, network namespaces, Graphviz, {@code keytool}, a script. Such tests
 * run in the full tier only ({@code mvn verify}, by maven-failsafe-plugin); {@code mvn test} (the fast
 * tier, maven-surefire-plugin) leaves them out. Both plugins are configured by tag {@value #TAG} in
 * the parent POM. An engine started in this JVM with fake ranks, or an in-process service host,
 * starts no process and stays in the fast tier.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(StartsProcesses.TAG)
public @interface StartsProcesses {
    /** The JUnit tag of the full tier's tests (surefire excludes it, failsafe runs only it). */
    String TAG = "slow";
}
