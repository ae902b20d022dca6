// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel.agent;

import io.opentelemetry.context.ContextStorage;
import io.vtscope.internal.RecordRegion;
import io.vtscope.otel.VtScopeContextStorage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Puts vtscope's storage on the OpenTelemetry Java agent's context storage and checks that it
 * took effect.
 *
 * <p><b>Why a wrapper in an extension.</b> The agent bridges the application's
 * {@code io.opentelemetry.context} onto its own shaded copy: every attach, the agent's own
 * instrumentation and the application's API calls alike, ends in the shaded
 * {@code Context.makeCurrent()}. An application-side storage provider never sees them. The agent
 * loads extension classes with {@code io.opentelemetry.context} and {@code .api} remapped onto
 * those shaded packages, so {@link ContextStorage#addWrapper} here wraps the agent's storage, and
 * {@link VtScopeContextStorage} (the code of vtscope-otel.jar, relocated into this jar) publishes
 * every change with the same record semantics as on the application side.
 *
 * <p><b>One record region per JVM.</b> The extension's class loader is not the application's, so
 * each has its own copy of the writer classes. They share the region through the process, not
 * through classes: {@link RecordRegion#global()} adopts a valid vtscope region this process
 * already maps (found in {@code /proc/self/maps}) before creating one. The extension's copy runs
 * first, during the agent's start-up (the agent initialises its storage, and so calls the wrapper,
 * before the application's main method), so it creates (or adopts the {@code -agentpath} agent's)
 * region, and any application-side vtscope code adopts that one. Publishing happens once: once the
 * wrapper is installed the extension sets {@link VtScopeContextStorage#PUBLISHER_PROPERTY}, and
 * the application-side provider and {@code VtScopeOtel.install()} stand down (leave the storage
 * unwrapped) when they see it. Sharing one writer through the boot class path was the other way;
 * it would put vtscope classes on every class loader's path and in the agent's own bootstrap
 * namespace, for no gain: the region is already per process, and only the publisher must be
 * unique.
 *
 * <p><b>Failing visibly.</b> A wrapper added after the storage was initialised is dropped by
 * OpenTelemetry and logged only at FINE. {@link #verify()} runs after the agent is installed (its
 * {@code AgentListener}) and logs one WARN line through the agent's logger (the agent routes the
 * extension's {@code java.util.logging}) if the wrapper never ran, never produced vtscope's storage
 * (record region unavailable), or the customizer never ran at all.
 */
public final class AgentStorageInstaller {
    private static final Logger LOGGER = Logger.getLogger(AgentStorageInstaller.class.getName());
    private static final String SHADED_PREFIX = "io.opentelemetry.javaagent.shaded.";

    private static final AtomicBoolean INSTALL_CALLED = new AtomicBoolean();
    private static final AtomicBoolean VERIFIED = new AtomicBoolean();
    /** The wrapper function ran (the storage was initialised after {@link #install()}). */
    private static volatile boolean wrapperRan;
    /** It returned vtscope's storage (the record region exists). */
    private static volatile boolean published;
    private static volatile boolean underAgent;

    /**
     * Registers the wrapper, once. Outside the agent (this jar on an ordinary class path, e.g. next
     * to an application's own SDK autoconfiguration) it does nothing: there vtscope-otel.jar is the
     * publisher, and two would publish twice.
     */
    public static void install() {
        if (!INSTALL_CALLED.compareAndSet(false, true)) {
            return;
        }
        underAgent = insideAgent();
        if (!underAgent) {
            LOGGER.fine("vtscope: not running inside the OpenTelemetry Java agent; the agent extension does nothing");
            return;
        }
        ContextStorage.addWrapper(AgentStorageInstaller::wrap);
    }

    /**
     * Whether this class runs inside the OpenTelemetry Java agent: the agent loads extensions with
     * {@code io.opentelemetry.context} remapped onto its shaded copy.
     */
    static boolean insideAgent() {
        return ContextStorage.class.getName().startsWith(SHADED_PREFIX);
    }

    /** Registers the wrapper on whichever {@code ContextStorage} this class was linked against (tests). */
    static void installForTest() {
        INSTALL_CALLED.set(true);
        underAgent = true;
        ContextStorage.addWrapper(AgentStorageInstaller::wrap);
    }

    /** Forgets every earlier install and verification (tests). */
    static void resetForTest() {
        INSTALL_CALLED.set(false);
        VERIFIED.set(false);
        wrapperRan = false;
        published = false;
        underAgent = false;
    }

    static ContextStorage wrap(ContextStorage storage) {
        wrapperRan = true;
        ContextStorage wrapped = VtScopeContextStorage.wrapStorage(storage);
        if (wrapped instanceof VtScopeContextStorage) {
            published = true;
            System.setProperty(VtScopeContextStorage.PUBLISHER_PROPERTY, VtScopeContextStorage.PUBLISHER_AGENT_EXTENSION);
        }
        return wrapped;
    }

    /**
     * Checks, once, that the wrapper took effect, initialising the storage if nothing did yet;
     * returns the WARN message it logged, or null if all is well.
     */
    public static String verify() {
        if (!VERIFIED.compareAndSet(false, true)) {
            return null;
        }
        String problem = null;
        if (!INSTALL_CALLED.get()) {
            problem = "vtscope: the agent never ran the extension's properties customizer (unsupported agent version?);"
                    + " no context is published to vtscope's records";
        } else if (!underAgent) {
            return null;
        } else {
            ContextStorage.get(); // the agent has initialised it by now; if not, this does, with the wrapper
            if (!wrapperRan) {
                problem = "vtscope: the context storage wrapper was not installed: the agent's context storage was"
                        + " initialised before the extension ran (too late, or an unsupported agent version);"
                        + " no context is published to vtscope's records";
            } else if (!published) {
                problem = "vtscope: the context storage wrapper was not installed: "
                        + RecordRegion.unavailableReason() + "; no context is published to vtscope's records";
            }
        }
        if (problem != null) {
            LOGGER.log(Level.WARNING, problem);
        }
        return problem;
    }

    private AgentStorageInstaller() {}
}
