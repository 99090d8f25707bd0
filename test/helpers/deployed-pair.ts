import { readFileSync } from 'node:fs'
import { type NginxServer, startNginx } from './nginx-server.js'
import { type ServiceProcess, startServiceProcess } from './service-process.js'

/** Two service processes behind a real nginx running the repository's deploy/nginx.conf. */
export type DeployedPair = {
  instances: [ServiceProcess, ServiceProcess]
  nginx: NginxServer
  stop(): Promise<void>
}

/**
 * The chain docker-compose.yml deploys, minus Redis (the caller starts it and names it in
 * `environment`): the first instance starts alone, since it records the shared volumes the
 * second is checked against; nginx round-robins between them with no stickiness.
 */
export async function startDeployedPair(environment: Record<string, string>): Promise<DeployedPair> {
  const first = await startServiceProcess(environment)
  const instances: [ServiceProcess, ServiceProcess] = [first, await startServiceProcess(environment)]
  const config = readFileSync(new URL('../../deploy/nginx.conf', import.meta.url), 'utf8')
  const nginx = await startNginx(
    config,
    instances.map((instance) => new URL(instance.baseUrl).host),
  )
  return {
    instances,
    nginx,
    stop: async () => {
      await nginx.stop()
      await Promise.all(instances.map((instance) => instance.stop()))
    },
  }
}
