import { describe, expect, it } from 'vitest';
import {
  regionName,
  regionOfPostalCode,
  tenderFromRelease,
} from '../../../src/service/import/ocds-mapping.ts';

describe('regions', () => {
  it.each([
    ['SW1A 2AA', 'London'],
    ['OX14 3DB', 'South East'],
    ['ox143db', 'South East'],
    ['EH1 1YZ', 'Scotland'],
    ['BT1 5GS', 'Northern Ireland'],
    ['K1A 0B1', 'Ontario'],
    ['H2Y 1C6', 'Quebec'],
    // Areas split between two regions, and what is no postcode, give no region rather than a wrong one.
    ['KT1 1AA', null],
    ['X0A 0H0', null],
    ['OX14', null],
    ['not a postcode', null],
  ])('reads the region of postcode %s as %s', (postalCode, region) => {
    expect(regionOfPostalCode(postalCode)).toBe(region);
  });

  it.each([
    ['UKD35', 'North West'],
    ['ukm', 'Scotland'],
    ['Yorkshire and the Humber', 'Yorkshire and The Humber'],
    ['Ontario', 'Ontario'],
    ['Unknown', null],
    ['UK', null],
    ['  ', null],
  ])('names region %j as %j', (written, region) => {
    expect(regionName(written)).toBe(region);
  });

  const release = (tender: object, parties: object[] = []) =>
    tenderFromRelease(
      { ocid: 'ocds-x-1', date: '2025-01-01T00:00:00Z', buyer: { id: 'B', name: 'Buyer' }, parties, tender },
      null,
    );

  it('takes the first place the release gives, most precise first, before the buyer’s address', () => {
    const buyer = { id: 'B', name: 'Buyer', address: { region: 'Wales', postalCode: 'CF10 1AA' } };
    expect(release({ items: [{ deliveryAddresses: [{ region: 'UKM82' }] }] }, [buyer])?.region).toBe(
      'Scotland',
    );
    expect(
      release({ items: [{ deliveryLocation: { gazetteer: { scheme: 'NUTS', identifiers: ['UKI31'] } } }] }, [
        buyer,
      ])?.region,
    ).toBe('London');
    expect(release({ items: [{ deliveryLocation: { description: 'scotland' } }] }, [buyer])?.region).toBe(
      'Scotland',
    );
    expect(release({ items: [{ deliveryAddresses: [{ postalCode: 'LS1 4DY' }] }] }, [buyer])?.region).toBe(
      'Yorkshire and The Humber',
    );
    expect(release({}, [buyer])?.region).toBe('Wales');
    expect(release({}, [{ ...buyer, address: { postalCode: 'CF10 1AA' } }])?.region).toBe('Wales');
    expect(release({}, [{ ...buyer, address: { countryName: 'Northern Ireland' } }])?.region).toBe(
      'Northern Ireland',
    );
    expect(
      release({}, [{ ...buyer, address: { region: 'Unknown', countryName: 'Canada' } }])?.region,
    ).toBeNull();
  });

  it('describes CPV codes from the items of awards and contracts too', () => {
    const tender = tenderFromRelease(
      {
        ocid: 'ocds-x-2',
        date: '2025-01-01T00:00:00Z',
        tender: { classification: { scheme: 'CPV', id: '90910000' } },
        awards: [
          {
            id: '1',
            items: [
              { classification: { scheme: 'CPV', id: '90910000-9', description: 'Cleaning services' } },
            ],
          },
        ],
      },
      null,
    );
    expect(tender?.cpvCodes).toEqual([{ code: '90910000', description: 'Cleaning services' }]);
  });
});
