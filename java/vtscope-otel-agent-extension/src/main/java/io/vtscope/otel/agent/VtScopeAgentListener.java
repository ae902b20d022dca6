// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel.agent;

import io.opentelemetry.javaagent.extension.AgentListener;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;

/**
 * Runs once the agent is installed, after it initialised its context storage: the point where
 * the extension can tell whether its wrapper took effect, and say so at WARN if not.
 */
public final class VtScopeAgentListener implements AgentListener {
    @Override
    public void afterAgent(AutoConfiguredOpenTelemetrySdk sdk) {
        AgentStorageInstaller.verify();
    }
}
