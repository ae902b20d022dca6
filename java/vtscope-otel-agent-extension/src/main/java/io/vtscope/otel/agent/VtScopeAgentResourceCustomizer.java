// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel.agent;

import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import io.vtscope.otel.VtScopeOtel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Puts the OpenTelemetry Java agent's resource ({@code service.name} from
 * {@code -Dotel.service.name} or {@code OTEL_SERVICE_NAME}, {@code service.instance.id}, the
 * resource providers' attributes) into libvtscope's OTEP 4719 process context, so readers of the
 * process (vtscope's {@code --otlp}, the OpenTelemetry eBPF profiler) get the application's
 * resource with no configuration of their own: the same publication as vtscope-otel.jar's
 * {@code VtScopeResourceCustomizer} (its code, relocated into this jar), for the agent's SDK, which
 * the agent autoconfigures from its extensions and not from the application's class path.
 *
 * <p>A provider of its own, at the highest order, because the agent applies resource customizers
 * in the order of their providers: this one runs last and sees the final resource, whereas
 * {@link VtScopeAgentCustomizer} must run early (its context storage wrapper). libvtscope may be
 * in the process already ({@code -agentpath}) or be loaded later; {@code ProcessResource.publish}
 * covers both (its class comment). Outside the agent it does nothing, like the wrapper: there
 * vtscope-otel.jar publishes. Nothing here may break the agent's start-up: a failure is one WARN
 * line through the agent's logger, and the resource goes on unchanged.
 */
public final class VtScopeAgentResourceCustomizer implements AutoConfigurationCustomizerProvider {
    private static final Logger LOGGER = Logger.getLogger(VtScopeAgentResourceCustomizer.class.getName());
    private static final AtomicBoolean TOLD = new AtomicBoolean();

    @Override
    public void customize(AutoConfigurationCustomizer customizer) {
        if (!AgentStorageInstaller.insideAgent()) {
            return;
        }
        customizer.addResourceCustomizer((resource, config) -> {
            try {
                int published = VtScopeOtel.publishResource(resource);
                if (published < 0 && TOLD.compareAndSet(false, true)) {
                    LOGGER.log(Level.WARNING, "vtscope: the agent's resource was not put into the process context"
                            + " (libvtscope result " + published + ")");
                }
            } catch (RuntimeException | LinkageError e) {
                if (TOLD.compareAndSet(false, true)) {
                    LOGGER.log(Level.WARNING, "vtscope: the agent's resource was not put into the process context: " + e);
                }
            }
            return resource;
        });
    }

    @Override
    public int order() {
        return Integer.MAX_VALUE;
    }
}
