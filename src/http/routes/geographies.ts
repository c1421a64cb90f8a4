// GET /v1/geographies, /v1/geographies/{geo_key}, /v1/geographies/{geo_key}/children: the
// geography operations rendered over REST. `{geo_key}` holds a colon (`state:06`) or, for the
// children endpoint, a URL-encoded name (`Travis%20County%2C%20TX`); the router decodes it.
import type { FastifyInstance } from 'fastify';
import { geographiesList } from '../../verbs/geographies-list.js';
import { geographyChildren } from '../../verbs/geography-children.js';
import { geographyGet } from '../../verbs/geography-get.js';
import { defineVerbRoute } from '../verb-route.js';

export function geographyRoutes(app: FastifyInstance) {
  defineVerbRoute(app, {
    url: '/v1/geographies',
    summary: 'Browse geographies by type, parent or name',
    description:
      'One of: `type` alone (every geography of the type), `parent` + `type` (children, as /v1/geographies/{geo_key}/children), or `search` (name words; states, counties, metros and districts; optionally narrowed by `type` and `parent`). Paginated with `limit`/`offset`; `meta.total_count` and `links.next`/`prev`. Each listed geography carries `links.profile`, the address of its profile page (`/profile/{geo_key}`: every topic with its MOE, beside the parents, with significance).',
    tags: ['geographies'],
    auth: 'api-key',
    errorStatuses: [404],
    needs: ['geographies'],
    paginated: true,
    verb: geographiesList,
    rest: {
      type: { describe: 'Geography type.' },
      parent: {
        describe:
          'A parent geography key (`state:48`) or name (`Travis County, TX`, `TX-35`); a former name (`Austin-Round Rock, TX`) brings `meta.name_note` and `meta.former_name`, as on the children operation.',
      },
      search: { describe: 'Name words, e.g. `travis`.' },
    },
  });

  defineVerbRoute(app, {
    url: '/v1/geographies/:geo_key',
    summary: 'Geography detail with its parent hierarchy',
    description:
      '`hierarchy` lists the parents nearest first, ending with the nation; `definitions` every definition the key has had across ACS vintages; counties carry `metro_key`.',
    tags: ['geographies'],
    auth: 'api-key',
    needs: ['geographies'],
    verb: geographyGet,
    rest: { geo_key: { path: 'geo_key' } },
  });

  defineVerbRoute(app, {
    url: '/v1/geographies/:geo_key/children',
    summary: 'Child geographies of a parent',
    description:
      'Accepted pairs: nation→state; state→county, cd, tract, block_group; metro→county, tract, block_group; cd→county, tract, block_group; county→tract, block_group; tract→block_group. Another pair is 400 `unsupported-child-type` naming the allowed types. The parent may be a key or a URL-encoded name (`Travis County, TX`, `TX-35`, `Austin-Round Rock-San Marcos, TX`), also a name the place had in another vintage (`Austin-Round Rock, TX`, the ACS 2017 title of `metro:12420`): `meta.name_note` then says so in a sentence and `meta.former_name` in fields (`former_name`, `from`, `to`: the vintages it held, `current_name` in `vintage`, `geo_key`; both null otherwise); a former name another place also bears is 400 `ambiguous-geography-name` with both as `candidates`. Paginated; the maximum page size depends on the plan.',
    tags: ['geographies'],
    auth: 'api-key',
    needs: ['geographies'],
    paginated: true,
    verb: geographyChildren,
    rest: { geo_key: { path: 'geo_key' }, type: { describe: 'Child type; see the pairs above.' } },
  });
}
